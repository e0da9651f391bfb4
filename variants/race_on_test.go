//go:build race

package variants_test

// raceAllocs is what the race detector adds to allocBounds: under -race,
// sync.Pool drops a share of what is put back at random (rueidis pools
// its commands), so that a cycle allocates 1 or 2 times more.
const raceAllocs = 2

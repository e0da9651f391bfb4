//go:build !race

package variants_test

// raceAllocs is what the race detector adds to allocBounds: nothing
// without it.
const raceAllocs = 0

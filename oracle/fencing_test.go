package oracle

import "testing"

// fenceStep is one action of a scripted fencing scenario: the named holder
// enters resource with token, or exits (writes).
type fenceStep struct {
	action   string // "enter" or "exit"
	holder   string
	resource int
	token    uint64
}

func TestOracleFencing(t *testing.T) {
	// pausedHolder: a (token 1) enters and is paused past its TTL; b and c
	// (tokens 2, 3) hold the lock after it and write; then a wakes and
	// writes with its old token.
	pausedHolder := []fenceStep{
		{"enter", "a", 0, 1},
		{"enter", "b", 0, 2}, {"exit", "b", 0, 0},
		{"enter", "c", 0, 3}, {"exit", "c", 0, 0},
		{"exit", "a", 0, 0},
	}
	tests := []struct {
		name        string
		reject      bool
		resources   int
		steps       []fenceStep
		want        Report
		wantRefused []string // holders whose Exit returned false
	}{
		{
			name: "increasing tokens", resources: 1,
			steps: []fenceStep{
				{"enter", "a", 0, 1}, {"exit", "a", 0, 0},
				{"enter", "b", 0, 2}, {"exit", "b", 0, 0},
				{"enter", "c", 0, 7}, {"exit", "c", 0, 0},
			},
			want: Report{MaxOccupancy: 1, CriticalSections: 3, Counter: 3},
		},
		{
			// Counted and applied: a's write puts the counter back to 1,
			// losing b's and c's updates.
			name: "paused holder, count", resources: 1, steps: pausedHolder,
			want: Report{Overlaps: 2, MaxOccupancy: 2, CriticalSections: 3, Counter: 1, LostUpdates: 2, StaleWrites: 1},
		},
		{
			// Refused: the counter keeps b's and c's updates, and a's
			// write is not a critical section, so no update is lost.
			name: "paused holder, reject", reject: true, resources: 1, steps: pausedHolder,
			want:        Report{Overlaps: 2, MaxOccupancy: 2, CriticalSections: 2, Counter: 2, RejectedWrites: 1},
			wantRefused: []string{"a"},
		},
		{
			// The check is on writes: a stale holder that writes before
			// its successor's first write is accepted, and the successor,
			// which read before it, then overwrites it. Fencing alone does
			// not protect a read-modify-write.
			name: "stale holder writes first, reject", reject: true, resources: 1,
			steps: []fenceStep{
				{"enter", "a", 0, 1}, {"enter", "b", 0, 2},
				{"exit", "a", 0, 0}, {"exit", "b", 0, 0},
			},
			want: Report{Overlaps: 1, MaxOccupancy: 2, CriticalSections: 2, Counter: 1, LostUpdates: 1},
		},
		{
			// Token 0 is no token: never checked, and it does not lower
			// the highest token seen.
			name: "token 0 is never checked", reject: true, resources: 1,
			steps: []fenceStep{
				{"enter", "a", 0, 5}, {"exit", "a", 0, 0},
				{"enter", "b", 0, 0}, {"exit", "b", 0, 0},
				{"enter", "c", 0, 4}, {"exit", "c", 0, 0},
			},
			want:        Report{MaxOccupancy: 1, CriticalSections: 2, Counter: 2, RejectedWrites: 1},
			wantRefused: []string{"c"},
		},
		{
			name: "each resource has its own highest token", resources: 2,
			steps: []fenceStep{
				{"enter", "a", 0, 9}, {"exit", "a", 0, 0},
				{"enter", "b", 1, 1}, {"exit", "b", 1, 0},
			},
			want: Report{MaxOccupancy: 1, CriticalSections: 2, Counter: 2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := New(tt.resources, 1)
			if tt.reject {
				o.RejectStaleWrites()
			}
			entries := map[string]Entry{}
			var refused []string
			for _, s := range tt.steps {
				switch s.action {
				case "enter":
					entries[s.holder] = o.EnterFenced(s.resource, s.token)
					if got := entries[s.holder].Token(); got != s.token {
						t.Fatalf("Entry.Token() = %d; want %d", got, s.token)
					}
				case "exit":
					if !o.Exit(entries[s.holder]) {
						refused = append(refused, s.holder)
					}
				}
			}
			got := o.Report()
			got.TimeOverLimit = 0
			if got != tt.want {
				t.Errorf("Report =\n%+v\nwant\n%+v", got, tt.want)
			}
			if got.CriticalSections != got.Counter+got.LostUpdates {
				t.Errorf("critical sections %d != counter %d + lost updates %d", got.CriticalSections, got.Counter, got.LostUpdates)
			}
			if len(refused) != len(tt.wantRefused) || (len(refused) > 0 && refused[0] != tt.wantRefused[0]) {
				t.Errorf("Exit refused %v; want %v", refused, tt.wantRefused)
			}
		})
	}
}

// Enter is EnterFenced without a token: its writes are never stale.
func TestOracleEnterHasNoToken(t *testing.T) {
	o := New(1, 1)
	o.RejectStaleWrites()
	e := o.EnterFenced(0, 3)
	o.Exit(e)
	plain := o.Enter(0)
	if plain.Token() != 0 {
		t.Errorf("Enter's Token() = %d; want 0", plain.Token())
	}
	if !o.Exit(plain) {
		t.Error("a write without a token was refused")
	}
	if r := o.Report(); r.StaleWrites != 0 || r.RejectedWrites != 0 || r.Counter != 2 {
		t.Errorf("Report %+v; want no stale or rejected writes, counter 2", r)
	}
}

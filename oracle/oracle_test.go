package oracle

import (
	"runtime"
	"sync"
	"testing"
	"time"
)

// step is one action of a scripted oracle scenario: enter a resource as the
// named holder, or have the named holder exit or abandon.
type step struct {
	action   string // "enter", "exit", "abandon" or "sleep"
	holder   string
	resource int
}

func TestOracleScenarios(t *testing.T) {
	tests := []struct {
		name      string
		resources int
		limit     int
		steps     []step
		want      Report
		wantOver  bool // TimeOverLimit > 0
	}{
		{
			name: "sequential holders", resources: 1, limit: 1,
			steps: []step{
				{"enter", "a", 0}, {"exit", "a", 0},
				{"enter", "b", 0}, {"exit", "b", 0},
				{"enter", "a", 0}, {"exit", "a", 0},
			},
			want: Report{MaxOccupancy: 1, CriticalSections: 3, Counter: 3},
		},
		{
			name: "two overlapping holders, limit 1", resources: 1, limit: 1,
			steps: []step{
				{"enter", "a", 0}, {"enter", "b", 0}, {"sleep", "", 0},
				{"exit", "a", 0}, {"exit", "b", 0},
			},
			want:     Report{Overlaps: 1, MaxOccupancy: 2, CriticalSections: 2, Counter: 1, LostUpdates: 1},
			wantOver: true,
		},
		{
			// A semaphore admits concurrent writers: lost updates are a
			// check of mutual exclusion and are not counted.
			name: "two holders, limit 2", resources: 1, limit: 2,
			steps: []step{
				{"enter", "a", 0}, {"enter", "b", 0}, {"sleep", "", 0},
				{"exit", "a", 0}, {"exit", "b", 0},
			},
			want: Report{MaxOccupancy: 2, CriticalSections: 2, Counter: 1},
		},
		{
			name: "holders of different resources do not overlap", resources: 2, limit: 1,
			steps: []step{
				{"enter", "a", 0}, {"enter", "b", 1},
				{"exit", "a", 0}, {"exit", "b", 1},
			},
			want: Report{MaxOccupancy: 1, CriticalSections: 2, Counter: 2},
		},
		{
			name: "abandon does not write", resources: 1, limit: 1,
			steps: []step{
				{"enter", "a", 0}, {"exit", "a", 0},
				{"enter", "b", 0}, {"abandon", "b", 0},
				{"enter", "a", 0}, {"exit", "a", 0},
			},
			want: Report{MaxOccupancy: 1, CriticalSections: 2, Abandoned: 1, Counter: 2},
		},
		{
			name: "abandoning overlapper loses nothing", resources: 1, limit: 1,
			steps: []step{
				{"enter", "a", 0}, {"enter", "b", 0}, {"sleep", "", 0},
				{"abandon", "a", 0}, {"exit", "b", 0},
			},
			want:     Report{Overlaps: 1, MaxOccupancy: 2, CriticalSections: 1, Abandoned: 1, Counter: 1},
			wantOver: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := New(tt.resources, tt.limit)
			entries := map[string]Entry{}
			for _, s := range tt.steps {
				switch s.action {
				case "enter":
					entries[s.holder] = o.Enter(s.resource)
				case "exit":
					o.Exit(entries[s.holder])
				case "abandon":
					o.Abandon(entries[s.holder])
				case "sleep":
					time.Sleep(time.Millisecond)
				}
			}
			got := o.Report()
			if over := got.TimeOverLimit > 0; over != tt.wantOver {
				t.Errorf("TimeOverLimit = %v, want > 0: %v", got.TimeOverLimit, tt.wantOver)
			}
			if tt.wantOver && got.TimeOverLimit < time.Millisecond {
				t.Errorf("TimeOverLimit = %v, want at least the 1ms slept while over", got.TimeOverLimit)
			}
			got.TimeOverLimit = 0
			if got != tt.want {
				t.Errorf("Report =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}

func TestOracleTimeOverLimitIncludesOpenInterval(t *testing.T) {
	o := New(1, 1)
	o.Enter(0)
	o.Enter(0)
	time.Sleep(2 * time.Millisecond)
	first := o.Report().TimeOverLimit
	if first < 2*time.Millisecond {
		t.Fatalf("TimeOverLimit = %v while still over, want >= 2ms", first)
	}
	time.Sleep(time.Millisecond)
	if second := o.Report().TimeOverLimit; second <= first {
		t.Errorf("open interval did not grow: %v then %v", first, second)
	}
}

// TestOracleConcurrentWithoutLock runs many holders with no lock at all: the
// oracle must see overlaps and lost updates, stay consistent, and be -race
// clean.
func TestOracleConcurrentWithoutLock(t *testing.T) {
	const (
		holders    = 16
		iterations = 200
		resources  = 2
	)
	o := New(resources, 1)
	var (
		wg      sync.WaitGroup
		entered sync.WaitGroup // makes the first critical sections overlap for sure
		done    = make(chan struct{})
	)
	entered.Add(holders)
	for h := range holders {
		wg.Go(func() {
			for i := range iterations {
				e := o.Enter(0)
				if i == 0 {
					entered.Done()
					entered.Wait()
				}
				runtime.Gosched()
				if i%10 == 9 {
					o.Abandon(e)
				} else {
					o.Exit(e)
				}
				e = o.Enter(1 + h%(resources-1))
				o.Exit(e)
			}
		})
	}
	reporterDone := make(chan struct{})
	go func() {
		defer close(reporterDone)
		for {
			select {
			case <-done:
				return
			default:
			}
			checkReportInvariants(t, o.Report())
		}
	}()
	wg.Wait()
	close(done)
	<-reporterDone

	rep := o.Report()
	checkReportInvariants(t, rep)
	if rep.Overlaps == 0 {
		t.Error("Overlaps = 0, want > 0 with no lock")
	}
	if rep.MaxOccupancy < 2 {
		t.Errorf("MaxOccupancy = %d, want >= 2", rep.MaxOccupancy)
	}
	if rep.TimeOverLimit <= 0 {
		t.Errorf("TimeOverLimit = %v, want > 0", rep.TimeOverLimit)
	}
	if want := int64(holders * iterations / 10); rep.Abandoned != want {
		t.Errorf("Abandoned = %d, want %d", rep.Abandoned, want)
	}
	if want := int64(holders*iterations*2) - rep.Abandoned; rep.CriticalSections != want {
		t.Errorf("CriticalSections = %d, want %d", rep.CriticalSections, want)
	}
}

func checkReportInvariants(t *testing.T, rep Report) {
	t.Helper()
	if rep.CriticalSections != rep.Counter+rep.LostUpdates {
		t.Errorf("CriticalSections %d != Counter %d + LostUpdates %d", rep.CriticalSections, rep.Counter, rep.LostUpdates)
	}
	if rep.LostUpdates < 0 {
		t.Errorf("LostUpdates = %d, want >= 0", rep.LostUpdates)
	}
}

func TestOraclePanics(t *testing.T) {
	tests := []struct {
		name string
		f    func()
	}{
		{"no resources", func() { New(0, 1) }},
		{"zero limit", func() { New(1, 0) }},
		{"resource out of range", func() { New(2, 1).Enter(2) }},
		{"negative resource", func() { New(2, 1).Enter(-1) }},
		{"exit of zero Entry", func() { New(1, 1).Exit(Entry{}) }},
		{"exit twice", func() {
			o := New(1, 1)
			e := o.Enter(0)
			o.Exit(e)
			o.Exit(e)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			tt.f()
		})
	}
}

package workloads

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/lockbench/lockbench/faults"
	"github.com/lockbench/lockbench/history"
	"github.com/lockbench/lockbench/measure"
	"github.com/lockbench/lockbench/metrics"
	"github.com/lockbench/lockbench/variants"
)

// Spec is the load of one run cell. Without Rate or Stages it is a closed
// loop: Clients simulated clients, each in a loop of acquire → enter the
// protected resource → hold → exit → release → think. With them it is an
// open loop: acquisitions arrive on a schedule, whoever is free serves them,
// and latency counts from when each was meant to start.
type Spec struct {
	// Clients is the number of simulated clients; in an open loop, the most
	// acquisitions in progress at once. Required, at least 1.
	Clients int `json:"clients,omitempty"`
	// Keys is the number of distinct lock names each client picks from
	// uniformly; 1 is maximum contention. Default 1.
	Keys int `json:"keys"`
	// KeyPerClient gives each client a lock name of its own (Keys is then
	// the number of clients): no contention, the cost of the lock alone.
	// Default false.
	KeyPerClient bool `json:"key_per_client,omitempty"`
	// KeyDist is how each acquisition's name is picked among Keys.
	// Default uniform.
	KeyDist KeyDist `json:"key_dist,omitzero"`
	// Hold is the time spent in the critical section. Default 0.
	Hold Distribution `json:"hold"`
	// Think is the pause after a release, in a closed loop. Default 0.
	Think Distribution `json:"think"`
	// Duration is the length of the measured phase. 0 runs until Ops. With
	// Stages it is their total.
	Duration time.Duration `json:"duration_ns"`
	// Ops stops a closed loop's measured phase after that many acquisitions
	// were started across all clients. Default 0: run for Duration.
	Ops int64 `json:"ops,omitempty"`
	// Warmup runs before the measured phase and is recorded apart.
	// Default 0.
	Warmup time.Duration `json:"warmup_ns"`
	// Clocks are the clients' clocks. Default: the machine's clock for all.
	Clocks Clocks `json:"clocks,omitzero"`
	// Rate is the open loop's arrivals per second (the starting rate when
	// Stages ramp it). Default 0: closed loop.
	Rate float64 `json:"rate,omitempty"`
	// Arrivals is how arrivals are spaced: constant or poisson. Default
	// constant.
	Arrivals string `json:"arrivals,omitempty"`
	// Pacing is how the open loop waits for its arrivals: PacingSleep
	// (default, "" too) or PacingSpin.
	Pacing string `json:"pacing,omitempty"`
	// Stages ramp the open loop's rate linearly, each from the rate before
	// it to its own over its duration.
	Stages []Stage `json:"stages,omitempty"`
	// Faults are the client faults (holder pause and crash, step delay and
	// crash) to apply; node faults among them are ignored here. The plan
	// echoes them.
	Faults []faults.Fault `json:"-"`
	// Live, when set, is fed while the cell runs (see Live). Default nil.
	Live *Live `json:"-"`
	// Follow, when set, measures how soon the clients follow a failover
	// (see Follow and NewFollow). Default nil.
	Follow *Follow `json:"-"`
	// FirstClient is the run-wide number of this process's first client
	// when shards of a run split the clients (0 otherwise): with
	// KeyPerClient, client i takes lock name FirstClient+i, so that the
	// shards' clients keep names of their own.
	FirstClient int `json:"-"`
	// Ready, when set, is called once every client is built, before the
	// warm-up starts; an error ends the cell unrun. The shards of a run
	// meet there, so that their phases start together.
	Ready func(context.Context) error `json:"-"`
	// HistoryEvents, when positive, records the cell's history (package
	// history), warm-up included, up to that many events; later ones are
	// dropped and the history is marked cut (Outcome.History). Default 0:
	// none.
	HistoryEvents int `json:"-"`
	// LeaseTTL is the lease time of the cell's variant, for its margins
	// (Outcome.Margins); 0, the default, for a variant whose leases do not
	// expire: no margins.
	LeaseTTL time.Duration `json:"-"`
	// Renews says that the variant renews its leases while they are held;
	// a lease that does not say when (variants.Renewed) then gets no late
	// time and no loss notices. Default false.
	Renews bool `json:"-"`
}

// Stage is one ramp of an open loop: to Rate over Duration. Its text form is
// DURATION:RATE (10s:5000).
type Stage struct {
	Duration time.Duration
	Rate     float64
}

// String returns the stage in ParseStages' form.
func (s Stage) String() string {
	return s.Duration.String() + ":" + strconv.FormatFloat(s.Rate, 'f', -1, 64)
}

// MarshalText encodes the stage as its string.
func (s Stage) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText parses the stage's string.
func (s *Stage) UnmarshalText(b []byte) error {
	st, err := ParseStages(string(b))
	if err == nil && len(st) != 1 {
		err = fmt.Errorf("%w: %q is not one stage", ErrBadRate, b)
	}
	if err == nil {
		*s = st[0]
	}
	return err
}

// Open reports whether the spec is an open loop.
func (s Spec) Open() bool { return s.Rate > 0 || len(s.Stages) > 0 }

// Validate reports the first field out of range.
func (s Spec) Validate() error {
	switch {
	case s.Clients < 1:
		return fmt.Errorf("workloads: clients must be at least 1 (got %d)", s.Clients)
	case s.Keys < 0:
		return fmt.Errorf("workloads: keys must be at least 1 (got %d)", s.Keys)
	case s.Duration < 0 || s.Warmup < 0 || s.Ops < 0 || s.Rate < 0:
		return errors.New("workloads: duration, warm-up, ops and rate must not be negative")
	case s.Open() && s.Ops > 0:
		return errors.New("workloads: an open loop runs for a duration, not a number of ops")
	case s.Arrivals != "" && s.Arrivals != "constant" && s.Arrivals != "poisson":
		return fmt.Errorf("workloads: arrivals must be constant or poisson (got %q)", s.Arrivals)
	case s.Pacing != "" && s.Pacing != PacingSleep && s.Pacing != PacingSpin:
		return fmt.Errorf("workloads: pacing must be %s or %s (got %q)", PacingSleep, PacingSpin, s.Pacing)
	case s.Duration == 0 && s.Ops == 0 && len(s.Stages) == 0:
		return errors.New("workloads: give a duration or a number of ops")
	}
	return nil
}

// LockName is the name of lock number i; the oracle's resource i is the
// same lock.
func LockName(i int) string { return "lock:" + strconv.Itoa(i) }

// ClientEnv is what a simulated client's lock is built with.
type ClientEnv struct {
	// Index numbers the client from 0.
	Index int
	// Clock is the client's own clock (variants.Config.Clock).
	Clock *Clock
	// OnAttempt must be called after every try at acquiring
	// (variants.Config.OnAttempt).
	OnAttempt func(error)
	// Note counts a variant's own happenings (variants.Config.Note).
	Note func(name string)
	// AtStep must be called at the variant's named steps
	// (variants.Config.AtStep); it applies step faults and freezes.
	AtStep func(ctx context.Context, step string) error
}

// NewLock builds the lock of one simulated client.
type NewLock func(ClientEnv) (variants.Lock, error)

// Outcome is what a run cell measured: its summary as the record keeps
// it (Spec.LeaseTTL gives it margins), and what only the runner reads.
type Outcome struct {
	metrics.CellSummary
	// FaultEvents are what the client faults did, timed from the start of
	// the measured phase.
	FaultEvents []measure.FaultEvent
	// History is the cell's history, warm-up included (Spec.HistoryEvents);
	// nil without one.
	History *history.History
}

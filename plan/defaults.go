package plan

import (
	"time"

	"github.com/lockbench/lockbench/clients"
	"github.com/lockbench/lockbench/variants"
)

// The defaults of a plan, in one place: what Build gives a setting that
// neither the overrides nor the scenario set, what WithDefaults fills in,
// and what the run flags show as their defaults. The TTL has none here: a
// zero TTL leaves each variant its own (variants.DefaultTTL, or a lock
// library's lease time).
var (
	// DefaultVariants are the single-instance locks and the negative
	// control.
	DefaultVariants = []string{"none", "simple", "setnx-expire", "set-nx-ex", "get-del", "lua-release", "watchdog"}
	// DefaultClients is one cell of 16 clients per variant.
	DefaultClients = []int{16}
	// DefaultClient is the client library.
	DefaultClient = clients.Names[0]
)

// The defaults of the scalar settings; hold, think and clock skew in the
// text their flags and scenario files take.
const (
	DefaultKeys           = 1
	DefaultHold           = "1ms"
	DefaultThink          = "0"
	DefaultDuration       = 10 * time.Second
	DefaultWarmup         = time.Second
	DefaultAcquireTimeout = variants.DefaultAcquireTimeout
	DefaultLimit          = 1
	DefaultRepeat         = 1
	DefaultClockSkew      = "0"
	DefaultFence          = FenceCount
)

package runner

import (
	"strings"
	"testing"

	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/driver/wire"
	"github.com/lockbench/lockbench/plan"
)

// Which scenarios a library driver runs in, and by which design it is
// predicted, follow from its init_ok and the scenario alone: redis-py (no
// renewal; single, sentinel, cluster), a Redlock library (single, masters),
// its renewing form, and a lock with fencing tokens (predicted as fenced
// where the scenario runs fenced, as lua-release elsewhere).
func TestDriverApplies(t *testing.T) {
	redisPy := findingsDriver{variant: "drv:redis-py", info: driver.Info{Capabilities: wire.Capabilities{
		Modes: []string{wire.ModeSingle, wire.ModeSentinel, wire.ModeCluster}}}}
	redlock := findingsDriver{variant: "drv:node-redlock", info: driver.Info{Capabilities: wire.Capabilities{
		Modes: []string{wire.ModeSingle, wire.ModeMasters}}}}
	using := findingsDriver{variant: "drv:sesame-redlock-using", info: driver.Info{Capabilities: wire.Capabilities{
		Renewal: true, Modes: []string{wire.ModeSingle, wire.ModeMasters}}}}
	fencedLib := findingsDriver{variant: "drv:redisson-fenced", info: driver.Info{Capabilities: wire.Capabilities{
		Fencing: true, Modes: []string{wire.ModeSingle, wire.ModeSentinel, wire.ModeCluster}}}}
	for _, tc := range []struct {
		scenario string
		d        findingsDriver
		analog   string // "" when it does not run; then notRun contains why
		why      string
	}{
		{"baseline", redisPy, "lua-release", ""},
		{"long-hold", using, "watchdog", ""},
		{"ticket-sale", using, "", "no design of its kind (watchdog)"},
		{"sentinel-failover", redisPy, "lua-release", ""},
		{"sentinel-failover", redlock, "", "not sentinel"},
		{"cluster-failover", redisPy, "lua-release", ""},
		{"redlock-minority", redlock, "redlock", ""},
		{"redlock-minority", using, "redlock", ""},
		{"redlock-minority", redisPy, "", "not masters"},
		{"release-race", redisPy, "", "step faults"},
		{"client-skew", redisPy, "", "a semaphore"},
		{"clock-jump", redlock, "", "a semaphore"},
		{"fencing", redisPy, "", "no fencing"},
		{"fencing", fencedLib, "fenced", ""},
		{"fencing-reject", fencedLib, "fenced", ""},
		{"holder-pause", fencedLib, "lua-release", ""},
	} {
		s, err := plan.LookupScenario(tc.scenario)
		if err != nil {
			t.Fatal(err)
		}
		analog, notRun := driverApplies(s, tc.d)
		if analog != tc.analog || (tc.analog == "") != (notRun != "") || !strings.Contains(notRun, tc.why) {
			t.Errorf("%s in %s: analog %q, not run %q; want %q, %q", tc.d.variant, tc.scenario, analog, notRun, tc.analog, tc.why)
		}
	}
}

// The drivers' run of a scenario: a TTL where the scenario gives none, a
// process per client under holder faults, one per client group otherwise.
func TestDriversOverrides(t *testing.T) {
	for _, tc := range []struct {
		scenario, flags string
	}{
		{"baseline", "--variants drv:x"},
		{"redlock-minority", "--variants drv:x --ttl 10s"},
		{"holder-pause", "--variants drv:x --driver-procs 4"},
		{"split-brain", "--variants drv:x --driver-procs 2"},
	} {
		s, err := plan.LookupScenario(tc.scenario)
		if err != nil {
			t.Fatal(err)
		}
		ov, flags := driversOverrides(s, []string{"drv:x"})
		if got := strings.Join(flags, " "); got != tc.flags {
			t.Errorf("%s: %q, want %q", tc.scenario, got, tc.flags)
		}
		if (ov.TTL != nil) != strings.Contains(tc.flags, "--ttl") || (ov.DriverProcs != nil) != strings.Contains(tc.flags, "--driver-procs") {
			t.Errorf("%s: overrides %+v do not match the flags %q", tc.scenario, ov, tc.flags)
		}
	}
}

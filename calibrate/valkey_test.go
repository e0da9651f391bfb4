package calibrate

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/topologies"
	"github.com/lockbench/lockbench/topologies/topotest"
)

// Calibrate on Valkey: valkey-server, against valkey-benchmark, named in
// the table and the conditions.
func TestCalibrateOnValkey(t *testing.T) {
	topotest.NeedServer(t, topologies.ServerValkey)
	o := DefaultOptions()
	o.Server, o.Client = topologies.ServerValkey, "rueidis"
	o.Connections, o.Requests, o.Duration, o.Warmup, o.Pairs = 4, 2000, 300*time.Millisecond, 100*time.Millisecond, 1
	stdout, log := runCalibrate(t, o)
	rows := calibrationTable(t, stdout)
	checkRow(t, "valkey-benchmark", rows["valkey-benchmark"])
	checkRow(t, "lockbench rueidis", rows["lockbench rueidis"])
	for _, want := range []string{", valkey 8.", "× valkey-benchmark's cycles/s"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if strings.Contains(stdout, "redis-benchmark") || !strings.Contains(log, "valkey-benchmark -h") {
		t.Errorf("calibrate on valkey named redis-benchmark, or did not run valkey-benchmark:\nstdout %s\nstderr %s", stdout, log)
	}
	if t.Failed() {
		t.Logf("stdout:\n%s", stdout)
	}
}

// A server that is not there is refused as bad options, naming --server.
func TestCalibrateServerRefused(t *testing.T) {
	o := DefaultOptions()
	o.Server = "/no/such/binary"
	_, err := o.Libraries()
	if !errors.Is(err, ErrBadOptions) || !strings.HasPrefix(err.Error(), "--server: /no/such/binary") {
		t.Errorf("Libraries with --server /no/such/binary: %v; want ErrBadOptions naming --server", err)
	}
}

package calibrate

import (
	"testing"
	"time"

	"github.com/lockbench/lockbench/driver"
)

// calibrate --driver's warm-up without --warmup is the runtime's: a JVM's
// long enough for its compilers; a given one is kept for every driver.
func TestDriverWarmup(t *testing.T) {
	java, node := driver.Manifest{Name: "j", Language: "java"}, driver.Manifest{Name: "n", Language: "node"}
	auto := DefaultDriverOptions()
	if got := auto.warmupFor(java); got != JVMWarmup {
		t.Errorf("a Java driver's default warm-up: %v, want %v", got, JVMWarmup)
	}
	if got := auto.warmupFor(node); got != time.Second {
		t.Errorf("a Node driver's default warm-up: %v, want 1s", got)
	}
	given := auto
	given.Warmup = 0
	if got := given.warmupFor(java); got != 0 {
		t.Errorf("--warmup 0 on a Java driver: %v", got)
	}
	if err := given.check(); err != nil {
		t.Errorf("--warmup 0: %v", err)
	}
	given.Warmup = -2 * time.Second
	if err := given.check(); err == nil {
		t.Error("--warmup -2s was accepted")
	}
}

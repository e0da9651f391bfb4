// Command go-lua is lockbench's reference lock driver: the lua-release
// variant (SET key token NX PX ttl; release by a Lua compare-and-delete;
// extend by a Lua compare-and-PEXPIRE) served over the lock-driver
// protocol (docs/drivers.md) on stdin and stdout, with lockbench's own
// variants and rueidis client. One goroutine serves each request; the
// reader never waits for Redis. It serves single, sentinel and cluster
// modes, and refuses independent masters, renewal and semaphores.
//
// lockbench runs it through drivers/go-lua/driver.json after make drivers
// builds it: lockbench driver check go-lua; lockbench run --variants
// drv:go-lua.
package main

import (
	"context"
	"fmt"
	"os"
)

func main() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := newServer(os.Stdout, os.Stderr).serve(ctx, os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, "go-lua:", err)
		os.Exit(1)
	}
}

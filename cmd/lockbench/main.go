// Command lockbench benchmarks and load-tests Redis distributed locks and
// semaphores, and counts how often they fail to exclude.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // a second Ctrl-C ends the process at once
	}()
	os.Exit(exitStatus(run(ctx, os.Args[1:], os.Stdout, os.Stderr), os.Stderr))
}

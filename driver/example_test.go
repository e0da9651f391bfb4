package driver_test

import (
	"fmt"

	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/variants"
)

// A --driver spec names a command line of your own, split at spaces.
func ExampleParseSpec() {
	m, err := driver.ParseSpec("mylock=python3 mylock.py --fast")
	fmt.Println(m.Name, m.Command, err)
	// Output: mylock [python3 mylock.py --fast] <nil>
}

// A retry policy as init's lock.retry carries it; the zero policy keeps
// the library's own.
func ExampleRetryOf() {
	p, _ := variants.ParseRetry("exp:1ms-100ms")
	fmt.Printf("%+v\n", driver.RetryOf(p))
	fmt.Printf("%+v\n", driver.RetryOf(variants.RetryPolicy{}))
	// Output:
	// {Kind:exp MinMs:1 MaxMs:100}
	// {Kind:library MinMs:0 MaxMs:0}
}

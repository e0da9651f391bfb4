package measure_test

import (
	"fmt"
	"time"

	"github.com/lockbench/lockbench/measure"
)

// Jain's index is 1 when every client acquired as often, 1/n when one got
// everything, and undefined (shown as "-") when none acquired.
func ExampleFairnessOf() {
	for _, perClient := range [][]int64{{7, 7, 7, 7}, {0, 0, 0, 12}, {0, 0}} {
		f := measure.FairnessOf(perClient)
		fmt.Println(perClient, f.JainText(), f.Defined())
	}
	// Output:
	// [7 7 7 7] 1.000 true
	// [0 0 0 12] 0.250 true
	// [0 0] - false
}

// A fault reads back in --fault's syntax, whatever the type of its kind.
func ExampleFault_String() {
	f := measure.FaultSpec{At: 5 * time.Second, Kind: "clock", Node: "node-3", Jump: -10 * time.Second}
	fmt.Println(f)
	// Output: at=5s clock node=node-3 jump=-10s
}

package linearize_test

import (
	"fmt"
	"os"

	"github.com/lockbench/lockbench/history"
	"github.com/lockbench/lockbench/linearize"
)

// Two clients inside one lock at once: the check finds the history not
// linearizable and names the two critical sections.
func ExampleCheck() {
	f, err := os.Open("testdata/mutex-overlap.jsonl")
	if err != nil {
		panic(err)
	}
	defer f.Close()
	h, err := history.ReadJSON(f)
	if err != nil {
		panic(err)
	}
	res, err := linearize.Check(h, linearize.Options{}) // critical sections, the header's limit
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Verdict)
	w := res.Window
	fmt.Printf("clients %v on %s, from %d ns to %d ns:\n", w.Processes, w.Key, w.From, w.To)
	for _, op := range w.Ops {
		fmt.Printf("  %v [%d, %d]\n", op, op.Call, op.Return)
	}
	// Output:
	// not linearizable
	// clients [0 1] on lockbench:k0, from 110 ns to 1010 ns:
	//   p0 enter lockbench:k0 #3-4 ok [110, 120]
	//   p1 enter lockbench:k0 #6-7 ok [510, 520]
	//   p1 exit lockbench:k0 #8-9 ok [700, 710]
	//   p0 exit lockbench:k0 #12-13 ok [1000, 1010]
}

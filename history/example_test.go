package history_test

import (
	"fmt"
	"os"

	"github.com/lockbench/lockbench/history"
)

// A client's cycle as the workload records it: each call bracketed by
// Invoke and Complete, the later operations naming the acquire's lease.
func ExampleRecorder() {
	rec := history.NewRecorder(history.RecorderOptions{Keys: []string{"lockbench:k0"}, Limit: 1})
	const client, key = 0, 0

	acq := rec.Invoke(client, key, history.Acquire, history.NoID)
	// lease, err := lock.Acquire(ctx, name)
	rec.Complete(acq, history.OK, 7) // the lease's fencing token, 0 for none
	in := rec.Invoke(client, key, history.Enter, acq)
	// entry := oracle.EnterFenced(k, lease.Token())
	rec.Complete(in, history.OK, 7)
	out := rec.Invoke(client, key, history.Exit, acq)
	// oracle.Exit(entry)
	rec.Complete(out, history.OK, 0)
	rel := rec.Invoke(client, key, history.Release, acq)
	// err = lease.Release(ctx): ErrLeaseLost is Fail, another error Info
	rec.Complete(rel, history.Fail, 0)

	h := rec.History()
	for _, op := range h.Operations() {
		fmt.Println(op)
	}
	fmt.Println("cut:", h.Meta.Cut)
	// Output:
	// p0 acquire lockbench:k0 #0-1 ok
	// p0 enter lockbench:k0 #2-3 ok
	// p0 exit lockbench:k0 #4-5 ok
	// p0 release lockbench:k0 #6-7 fail
	// cut: false
}

func ExampleWriteEDN() {
	f, err := os.Open("testdata/renewal.jsonl")
	if err != nil {
		panic(err)
	}
	defer f.Close()
	h, err := history.ReadJSON(f)
	if err != nil {
		panic(err)
	}
	// One key's critical sections, as Knossos' mutex model reads them.
	if err := history.WriteEDN(os.Stdout, h, history.EDNOptions{Key: "lockbench:a"}); err != nil {
		panic(err)
	}
	// Output:
	// {:process 0, :type :invoke, :f :acquire, :value nil, :time 110, :index 0}
	// {:process 0, :type :ok, :f :acquire, :value nil, :time 120, :index 1}
	// {:process 0, :type :invoke, :f :release, :value nil, :time 400, :index 2}
	// {:process 0, :type :ok, :f :release, :value nil, :time 410, :index 3}
}

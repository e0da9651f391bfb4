package compare_test

import (
	"fmt"

	"github.com/lockbench/lockbench/compare"
	"github.com/lockbench/lockbench/record"
)

func ExampleParseRule() {
	for _, text := range []string{"acquire.p99:+10%", "overlaps:>0", "throughput:+5%"} {
		r, err := compare.ParseRule(text)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(r.Metric, "relative:", r.Relative())
	}
	// Output:
	// acquire.p99 relative: true
	// overlaps relative: false
	// bad rule "throughput:+5%": higher is better for throughput, so a regression is a fall: write throughput:-5%
}

func ExampleCompare() {
	cell := func(rep int, throughput float64) record.Cell {
		return record.Cell{Variant: "lua-release", Client: "rueidis", Clients: 8, Keys: 1, Limit: 1, Repetition: rep, ThroughputPerS: throughput}
	}
	old, new := &record.Record{RunID: "old"}, &record.Record{RunID: "new"}
	for i, t := range []float64{610, 598, 621, 605, 615} {
		old.Cells = append(old.Cells, cell(i+1, t))
		new.Cells = append(new.Cells, cell(i+1, t/2))
	}
	rule, _ := compare.ParseRule("throughput:-10%")
	rep, err := compare.Compare(old, new, compare.Options{Metrics: []string{"throughput"}, Rules: []compare.Rule{rule}})
	if err != nil {
		panic(err)
	}
	row, _ := rep.Cells[0].Row("throughput")
	fmt.Printf("%.0f → %.0f: %+.1f%%, p=%.3f, significant %v\n", row.Old.Median, row.New.Median, 100*row.Change, row.P, row.Significant)
	for _, f := range rep.Failures {
		fmt.Println(f)
	}
	// Output:
	// 610 → 305: -50.0%, p=0.008, significant true
	// lua-release, 8 clients, 1 key, rueidis: throughput:-10%: -50.00% (610 → 305, p=0.008 n=5)
}

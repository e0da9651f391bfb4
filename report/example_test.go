package report_test

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/lockbench/lockbench/metrics"
	"github.com/lockbench/lockbench/oracle"
	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/report"
)

// A page of one record with one cell: its table, and charts of the
// latency spectrum, three series over time and its clients' acquisitions.
func ExampleWrite() {
	start := time.Unix(1_700_000_000, 0)
	recorder := metrics.NewRecorder(start)
	for i := range 1000 {
		recorder.Acquired(start.Add(time.Duration(i)*time.Millisecond), time.Duration(i+1)*time.Microsecond, time.Duration(i+1)*time.Microsecond)
	}
	cell, err := record.NewCell(metrics.CellSummary{
		Measured: metrics.Merge([]*metrics.Recorder{recorder}, []int64{600, 400}),
		Warmup:   metrics.Merge(nil, nil),
		Handoff:  oracle.New(1, 1).Handoff(),
		Elapsed:  time.Second,
	}, oracle.Report{})
	if err != nil {
		fmt.Println(err)
		return
	}
	cell.Variant, cell.Clients, cell.Limit, cell.Repetition = "lua-release", 2, 1, 1
	rec := &record.Record{Schema: record.SchemaVersion, Tool: "lockbench", RunID: "example", Cells: []record.Cell{cell}}

	var page bytes.Buffer
	if err := report.Write(&page, []*record.Record{rec}, report.Options{}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(strings.Count(page.String(), "<svg "), "charts;", strings.Contains(page.String(), "<script"), "scripts")
	// Output: 5 charts; false scripts
}

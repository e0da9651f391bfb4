package calibrate

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/olekukonko/tablewriter/tw"

	"github.com/lockbench/lockbench/plan"
	"github.com/lockbench/lockbench/render"
)

// DriverSummary is a calibrate --driver run: each pair's two sides, and
// the conditions it ran in. Write prints the pairs, their medians and the
// verdicts.
type DriverSummary struct {
	driver           string
	clients, procs   int
	duration, warmup time.Duration
	conditions       Conditions
	samples          []driverSample
}

// ratio is the spread over the pairs of f over each pair's reference.
func (sum DriverSummary) ratio(f, reference func(driverSample) float64) spread {
	var rs []float64
	for _, s := range sum.samples {
		if ref := reference(s); ref > 0 {
			rs = append(rs, f(s)/ref)
		}
	}
	return spreadOf(rs)
}

// of is the spread of f over the pairs.
func (sum DriverSummary) of(f func(driverSample) float64) spread {
	var xs []float64
	for _, s := range sum.samples {
		xs = append(xs, f(s))
	}
	return spreadOf(xs)
}

func (s driverSample) bareP50() float64    { return float64(s.bare.AcquireP50.Microseconds()) }
func (s driverSample) libraryP50() float64 { return s.cell.Driver.LibraryAcquireUS.P50 }
func (s driverSample) p50() float64        { return s.cell.AcquireLatencyUS.P50 }
func (s driverSample) bareCores() float64 {
	return s.bare.CPU.Seconds() / s.bare.Elapsed.Seconds()
}
func (s driverSample) driverCores() float64 {
	return s.cell.Driver.CPUSeconds / s.cell.ElapsedS
}

// Write prints the calibration: a line of what ran, the conditions, a row
// per pair and the medians, where the time goes, and the verdicts.
func (sum DriverSummary) Write(w io.Writer) error {
	if len(sum.samples) == 0 {
		return nil
	}
	d := sum.samples[0].cell.Driver
	lines := []string{
		fmt.Sprintf("calibrate --driver %s: %s %s (%s); %d clients, a lock name each, no hold, ttl %v; %v measured + %v warm-up a side",
			sum.driver, d.Library, d.Version, d.Language, sum.clients, calibrateTTL, sum.duration, sum.warmup),
		fmt.Sprintf("bare loop: the driver folder's program making the driver's library calls in a plain loop (no protocol), one process; lockbench: drv:%s, the same load, %s",
			sum.driver, processes(d.Procs, sum.procs == plan.AutoDriverProcs)),
		sum.conditions.line(len(sum.samples)),
	}
	if err := writeLines(w, lines); err != nil {
		return err
	}
	t := render.TextTable(w, tw.CellConfig{Alignment: tw.CellAlignment{PerColumn: []tw.Align{tw.AlignLeft, tw.AlignLeft}, Global: tw.AlignRight}})
	t.Header([]string{"pair", "first", "bare acq/s", "lockbench acq/s", "× bare",
		"bare CPU/acq", "lockbench + driver CPU/acq", "× bare", "bare acquire p50", "library p50 in driver", "lockbench acquire p50"})
	var body [][]string
	for i, s := range sum.samples {
		first := "bare"
		if (i+1)%2 == 0 {
			first = "lockbench"
		}
		body = append(body, []string{strconv.Itoa(i + 1), first, formatCount(s.bareRate()), formatCount(s.rate()), formatRatio(s.rate() / s.bareRate()),
			formatCPU(s.bareCPU()), fmt.Sprintf("%s (%s + %s)", formatCPU(s.clientCPU()), formatCPU(s.lockbenchCPU()), formatCPU(s.driverCPU())),
			formatRatio(s.clientCPU() / s.bareCPU()), formatUS(s.bareP50()), formatUS(s.libraryP50()), formatUS(s.p50())})
	}
	rate, cpu := sum.ratio(driverSample.rate, driverSample.bareRate), sum.ratio(driverSample.clientCPU, driverSample.bareCPU)
	body = append(body, []string{"median", "", formatCount(sum.of(driverSample.bareRate).median), formatCount(sum.of(driverSample.rate).median),
		formatRatio(rate.median), formatCPU(sum.of(driverSample.bareCPU).median),
		fmt.Sprintf("%s (%s + %s)", formatCPU(sum.of(driverSample.clientCPU).median), formatCPU(sum.of(driverSample.lockbenchCPU).median), formatCPU(sum.of(driverSample.driverCPU).median)),
		formatRatio(cpu.median), formatUS(sum.of(driverSample.bareP50).median), formatUS(sum.of(driverSample.libraryP50).median), formatUS(sum.of(driverSample.p50).median)})
	if err := t.Bulk(body); err != nil {
		return err
	}
	if err := t.Render(); err != nil {
		return err
	}
	libP50, p50 := sum.of(driverSample.libraryP50).median, sum.of(driverSample.p50).median
	targets := [2]target{
		{name: "acq/s / bare", before: "lockbench's acq/s ", after: "× the bare loop's", value: rate.median, target: bareThroughputTarget, pairs: rate},
		{name: "CPU / bare", before: "lockbench's and the driver's CPU per acquisition ", after: "× the bare loop's", value: cpu.median, target: bareCPUTarget, atMost: true, pairs: cpu},
	}
	lines = []string{
		"CPU is each process's user + system time in the measured phase: the bare loop's own, as its runtime reads it; lockbench's (getrusage) + the driver's processes' (/proc)",
		fmt.Sprintf("where the time goes (medians): the library's acquire took %s in the bare loop, %s inside the driver; lockbench timed %s, so the pipe and lockbench add %s to each acquire",
			formatUS(sum.of(driverSample.bareP50).median), formatUS(libP50), formatUS(p50), formatUS(p50-libP50)),
		fmt.Sprintf("cores busy (medians): the bare loop's process %.2f; the driver's processes %.2f beside lockbench",
			sum.of(driverSample.bareCores).median, sum.of(driverSample.driverCores).median),
		targets[0].line(sum.driver),
		targets[1].line(sum.driver),
	}
	switch {
	case targets[0].met():
		lines = append(lines, "calibrate --driver: meets its target (throughput)")
	case targets[1].met():
		lines = append(lines, "calibrate --driver: meets its target where the library saturates the machine (CPU per acquisition), not the throughput one")
	default:
		lines = append(lines, "calibrate --driver: meets neither target: the driver path, not the library, is the limit")
	}
	return writeLines(w, lines)
}

// processes says how many driver processes lockbench's side ran, n, and
// whether --driver-procs auto chose them.
func processes(n int, auto bool) string {
	switch {
	case auto:
		return fmt.Sprintf("%d driver process(es) (--driver-procs auto)", n)
	case n == 1:
		return "one driver process"
	}
	return fmt.Sprintf("%d driver processes (--driver-procs %d)", n, n)
}

func formatUS(us float64) string { return strconv.FormatFloat(us, 'f', 0, 64) + " µs" }

func writeLines(w io.Writer, lines []string) error {
	for _, line := range lines {
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	return nil
}

package report

import (
	"html/template"

	"github.com/lockbench/lockbench/measure"
)

// secondT is one second of a cell's series.
type secondT = measure.Second

// style is the page's only stylesheet: inline, system fonts, nothing
// fetched.
const style = `
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 1.5rem auto; max-width: 72rem; padding: 0 1rem; color: #222; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.3rem; border-bottom: 1px solid #ccc; padding-bottom: .2rem; margin-top: 2.5rem; } h3 { font-size: 1.05rem; }
.table { overflow-x: auto; }
.verdict { border-left: 4px solid #2b7a4b; background: #f3f9f5; padding: .3rem 1rem; margin: 1rem 0; }
.verdict ul { margin: .3rem 0; padding-left: 1.1rem; } .verdict li { margin: .15rem 0; }
table.summary { font-size: .9rem; margin-top: .5rem; }
td.safe { color: #1d6b3c; font-weight: bold; } td.broke { color: #a00; font-weight: bold; } td.nodata { color: #777; }
td.safe, td.broke, td.nodata, table.summary th:last-child { text-align: left; }
details.all { margin: 1rem 0; } details.all summary { cursor: pointer; font-size: .9rem; }
table { border-collapse: collapse; font-size: .8rem; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #ddd; padding: .2rem .45rem; text-align: right; white-space: nowrap; }
th { background: #f3f3f3; } td:first-child, th:first-child { text-align: left; }
.notes { font-size: .85rem; color: #444; } .warn { color: #a00; font-weight: bold; }
figure { margin: 1rem 0; } svg { max-width: 100%; height: auto; }
figcaption, .hint { font-size: .8rem; color: #555; }
pre { background: #f6f6f6; padding: .6rem; font-size: .75rem; overflow-x: auto; }
nav ul { font-size: .9rem; }
`

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>` + style + `</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{if gt (len .Records) 1}}<nav><ul>{{range .Records}}<li><a href="#{{.ID}}">run {{.RunID}}</a></li>{{end}}</ul></nav>{{end}}
{{range .Records}}
<section id="{{.ID}}">
<h2>Run {{.RunID}}</h2>
{{if .Interrupted}}<p class="warn">INTERRUPTED: the run was stopped early; figures cover only what ran.</p>{{end}}
<div class="verdict" id="{{.ID}}-verdict">
<ul>{{range .Conclusions}}<li>{{.}}</li>{{end}}</ul>
</div>
<div class="table"><table class="summary">
<thead><tr>{{range .SummaryHeader}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .SummaryRows}}<tr>{{range .Cells}}<td>{{.}}</td>{{end}}<td class="{{.Class}}">{{.Verdict}}</td></tr>{{end}}</tbody>
</table></div>
<p class="hint">verdict: safe, or the worst the oracle saw break (holders at once over the limit, lost updates, stale writes or releases); {{.CostHint}}.</p>
<details class="all"><summary>All figures ({{len .Header}} columns, as lockbench run --wide shows them)</summary>
<div class="table"><table>
<thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>{{end}}</tbody>
</table></div>
</details>
<div class="notes">{{range .Notes}}<p>{{.}}</p>{{end}}</div>
<p class="hint">Lost updates are totals per cell (the table's "lost upd"): the record does not keep them per second. Overlaps are charted per second below.</p>
{{if .Repeated}}<p class="hint">Repeated run: the table shows medians over the repetitions; the charts show the first repetition of each cell.</p>{{end}}
{{range .Sweeps}}
<h3>Sweep: {{.Variant}}</h3>
<figure>{{.Chart}}<figcaption>Throughput at each step; the curve is the Universal Scalability Law fitted to a clients sweep's points.</figcaption></figure>
<ul class="notes">{{range .Lines}}<li>{{.}}</li>{{end}}</ul>
{{end}}
{{range .ScaleOuts}}
<h3>Scale-out: {{.Variant}}</h3>
<figure>{{.Chart}}<figcaption>Best throughput within the SLO at each node count, and the plan's prediction from the one-node steps (dashed).</figcaption></figure>
<ul class="notes">{{range .Lines}}<li>{{.}}</li>{{end}}</ul>
{{end}}
{{if .Charted}}
<h3>Latency</h3>
<figure>{{.Spectrum}}<figcaption>Acquire latency at each percentile, from the cell's HdrHistogram (x: 1/(1−q) on a log scale). Solid: from each acquisition's intended start (coordinated-omission corrected in an open loop); dashed "raw": from its actual start, drawn only where the two differ.</figcaption></figure>
<h3>Over time</h3>
{{if .Faults}}<p class="hint">Red dashed lines mark the fault events.</p>{{end}}
<figure>{{.Throughput}}</figure>
<figure>{{.P99}}<figcaption>Each second's p99 from its own histogram (2 significant figures); seconds without an acquisition are left out.</figcaption></figure>
<figure>{{.Overlaps}}<figcaption>New overlaps (entries that made the holders exceed the limit) in each second, as the oracle saw them.</figcaption></figure>
<h3>Fairness</h3>
{{range .Fairness}}<figure>{{.}}</figure>{{end}}
{{if .NoPerClient}}<p class="hint">Some cells have no per-client counts (a record from an older lockbench): see min/max per client and Jain's index in the record.</p>{{end}}
{{else}}<p class="hint">No cell ran without error: nothing to chart.</p>{{end}}
<h3>Configuration</h3>
<details><summary>the run's plan (JSON, as in the record's "config")</summary><pre>{{.Config}}</pre></details>
</section>
{{end}}
<p class="hint">Generated {{.Generated}} by lockbench report from {{len .Records}} record(s). The page is self-contained: charts are inline SVG, nothing is loaded from the network.</p>
</body>
</html>
`))

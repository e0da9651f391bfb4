// Package progress shows a run while it goes: a progress line on a
// terminal or in a log (Renderer), and Prometheus metrics over HTTP
// (Exporter, Server), both fed by the cells' workloads.Live counters, and
// the two together for one run (Live: Start, Cell, Println, Stop), with
// what the terminal is (IsTerminal, TerminalWidth). It owns no
// measurement: the record stays the run's result.
package progress

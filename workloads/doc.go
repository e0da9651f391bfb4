// Package workloads owns what load is offered to a lock during a run cell:
// a closed loop (N clients, each acquiring, holding, releasing and thinking in
// turn) or an open loop (acquisitions arriving at a fixed rate), the key space
// the clients contend on, the distributions of hold and think times, and how
// long a cell lasts (duration or number of operations, after a warm-up).
//
// [Distribution] describes a hold or think time and parses from the compact
// text form used on the command line and in run records: "2ms", "exp:2ms",
// "uniform:1ms-5ms", "normal:10ms,2ms".
package workloads

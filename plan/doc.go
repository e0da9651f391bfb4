// Package plan owns the description of a run: which variants, client
// counts, client library, topology, workload, lock settings and faults.
// Build makes a Plan of a scenario and the settings the user gave
// (Overrides; the CLI's flags), with the defaults (defaults.go) and every
// check; the runner executes it, and the run record echoes it so that
// a run can be understood, repeated and compared. It also owns the named
// scenarios (and their YAML file format): plans that reproduce a claim of
// the literature, with the source and the prediction. Before a plan runs,
// CheckMemory refuses one whose clients would not fit in this machine's
// memory (from what each variant registered a client takes), and
// CheckShard one whose shard would get no load.
package plan

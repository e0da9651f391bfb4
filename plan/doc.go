// Package plan owns the description of a run: which variants, client
// counts, client library, topology, workload and lock settings. The CLI
// builds a Plan from flags, the runner executes it, and the results record
// echoes it so that a run can be understood, repeated and compared.
package plan

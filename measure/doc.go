// Package measure owns the figures one cell measured, shared by the
// measuring side and the record: a latency summary, a second of the
// per-second series, fairness over the clients (Jain's index), error
// counts by kind, a node's server cost, and a fault with its events in
// the text the record keeps. metrics and faults build these types
// directly and the record (package record) keeps them as they are, so
// each is defined once. It imports the standard library only: reading a
// record links nothing that measures.
package measure

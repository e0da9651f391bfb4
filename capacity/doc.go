// Package capacity owns the models that extrapolate measured lock
// throughput: the Universal Scalability Law fit, the knee, and the number
// of Redis nodes (masters) a target rate needs. It is pure arithmetic on
// numbers a run already measured; it does no I/O and prints nothing.
package capacity

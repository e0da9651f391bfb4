// Package calibrate measures lockbench against references on the same
// traffic, an uncontended lock cycle (SET key token NX PX 10000, then
// DEL key) per connection, on one redis-server of its own:
// redis-benchmark (its runner and its CSV parser), each client library's
// bare loop (the same cycle through the library's own calls, no
// lockbench in the way: BareLoop), and lockbench's runner. Run takes the
// measurements in pairs, back to back, and its Summary holds their
// medians (benchmath's), each pair's ratios, and the verdicts against the
// targets; Summary.Write prints them for lockbench calibrate.
package calibrate

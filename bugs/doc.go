// Package bugs is lockbench's catalogue of lock libraries' tracker bugs,
// each reproduced on the release its tracker calls affected and shown gone
// on the fixed one: the question a team asks after an incident ("are we on
// an affected release, and does upgrading fix it?") as a regression check.
//
// An entry is a YAML file of entries/ (embedded in the binary): the
// tracker's reference, the library's driver, an affected and a fixed
// version, the run that triggers the bug (a scenario as scenario files
// write one), the figures that show it (record thresholds: overlaps>0,
// expired_at_acquire>0), what each side is predicted to do, and what the
// code does at both versions, and any other variants to run beside them
// on the same trigger (another library said to carry the fix), whose
// tallies are reported and weigh on no verdict. Run runs each entry on both versions
// (drv:DRIVER@VERSION, package driver/install), interleaved, a number of
// times, and tallies in how many runs the bug was seen on each, with a
// 95 % Wilson interval and a verdict; WriteMarkdown writes docs/bugs.md.
package bugs

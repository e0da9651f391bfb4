// Package wire holds the messages of lockbench's lock-driver protocol,
// version 1 (docs/drivers.md, docs/drivers.schema.json): one JSON object a
// line on a driver's stdin (lockbench's requests) and stdout (the driver's
// replies and unasked messages). Both sides of the protocol written in Go
// use it: package driver (lockbench's side) and the reference driver
// drivers/go-lua. It imports the standard library only and does no I/O but
// reading a password's source.
package wire

// Package clients adapts Redis client libraries (rueidis and go-redis) to
// the narrow connection interface variants.Conn, so that every variant runs
// on either library and a record can say which one it measured. Both
// follow a failover: a Sentinel's new master, a cluster's promoted
// replica (a dedicated connection follows MOVED at its first command, and
// go-redis reloads a cluster's slots when a node fails).
package clients

// Package clients adapts Redis client libraries (rueidis and go-redis) to
// the narrow connection interface variants.Conn, so that every variant runs
// on either library and a record can say which one it measured.
package clients

// Package redisinfo owns the replies of Redis' introspection commands,
// parsed: INFO's sections and fields (and CLUSTER INFO's, which come
// without a section), the replication state INFO reports, and the lines
// of CLUSTER NODES.
//
// It parses text only. It sends nothing and imports only the standard
// library, so that packages that must never link a Redis client — metrics,
// and the record packages built on it — parse INFO with the same code as
// the packages that talk to Redis. Package topologies sends the commands
// and answers the questions built on these replies (which data nodes there
// are, with which roles).
//
// Every error of parsing wraps [ErrMalformed]. The parsers accept text as
// Redis writes it (\r\n line ends), with bare \n, and with the "txt:" that
// starts a RESP3 verbatim string as some clients hand it over.
package redisinfo

// Package topologies owns where Redis is: a local redis-server process that
// lockbench starts and stops itself, an in-process miniredis (the embedded
// fallback, whose figures are not representative), or an existing server
// given by URL, used only under lockbench's key prefix.
//
// A Topology hands out Endpoints (address, credentials, TLS); the client
// adapters in package clients connect to them. Topologies never send lock
// traffic themselves.
package topologies

// Package topologies owns where Redis is: local redis-server processes that
// lockbench starts and stops itself (a single server, a master with
// replicas, the same under Sentinel, a Redis Cluster, or independent
// masters for Redlock), an in-process miniredis (the embedded fallback,
// whose figures are not representative), or existing servers given by URL,
// used only under lockbench's key prefix.
//
// A Topology hands out Access (endpoints with address, credentials, TLS);
// the client adapters in package clients connect to them. Topologies never
// send lock traffic themselves. A Local topology is also a Controller that
// pauses, kills, restarts and promotes its nodes and moves their wall
// clocks (through the clock shim in clockshim/, preloaded into every node),
// for faults, and can be saved to a state file to outlive lockbench
// (Spec.Detached, Local.Save, StopSaved).
//
// The package is also the one place that asks Redis what a topology is
// now, whoever started it: [Discover] lists the data nodes with their live
// roles (from CLUSTER NODES, the Sentinels, or INFO replication),
// [SentinelMaster] asks the Sentinels for the current master, and a
// [NodeConn] asks one node its INFO. Package redisinfo parses the replies.
package topologies

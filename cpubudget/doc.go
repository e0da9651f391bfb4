// Package cpubudget holds processes to a share of one CPU core through
// Linux cgroups: cgroup v2's cpu.max where the unified hierarchy has the cpu
// controller, else cgroup v1's cpu.cfs_quota_us. Every cgroup it makes is
// under one parent, lockbench/p<pid>-<start>/ in the cpu hierarchy, named
// for the process that made it, so that the cgroups of a process killed
// with SIGKILL are found and removed by the next one (RemoveStale). It
// imports the standard library and procfs only.
package cpubudget

// Package procfs is lockbench's one reader of /proc: a process's state,
// start time, CPU time (SelfCPU: this process's, from getrusage) and
// command line (/proc/PID/stat, /proc/PID/cmdline; ps
// where there is no /proc), the kB fields of its status (VmRSS, VmHWM),
// the machine's MemAvailable (/proc/meminfo) and load average
// (/proc/loadavg), and which process holds a loopback TCP socket
// (/proc/net/tcp, /proc/PID/fd). Standard library only; every reader says
// when it has no answer rather than failing.
package procfs

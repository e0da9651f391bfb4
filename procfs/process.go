package procfs

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// available reports whether this system has a /proc to read.
func available() bool {
	_, err := os.Stat("/proc/self/stat")
	return err == nil
}

// statFields are the fields of /proc/PID/stat after the command name,
// which is in parentheses and may hold spaces: the state first, the start
// time the 20th. ok is false when the process is gone or the file cannot
// be read.
func statFields(pid int) (fields []string, ok bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil, false
	}
	i := strings.LastIndexByte(string(stat), ')')
	if i < 0 {
		return nil, false
	}
	return strings.Fields(string(stat[i+1:])), true
}

// ps runs ps -o COLUMNS= -p pid and returns its line, trimmed; "" when
// there is no such process or no ps.
func ps(pid int, columns string) string {
	out, err := exec.Command("ps", "-o", columns, "-p", strconv.Itoa(pid)).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// State is the state letter of process pid (R running, S sleeping, T
// stopped, Z zombie, ...), from /proc or, where there is none, ps; 0 when
// it cannot be had.
func State(pid int) byte {
	if !available() {
		if s := ps(pid, "stat="); s != "" {
			return s[0]
		}
		return 0
	}
	f, ok := statFields(pid)
	if !ok || len(f) == 0 || f[0] == "" {
		return 0
	}
	return f[0][0]
}

// Stopped says whether every thread of process pid is stopped (state T
// or t); known is false where there is no /proc to say, or no such
// process. A SIGSTOP stops a process's threads one by one, each when it
// next runs: one woken meanwhile can still do work.
func Stopped(pid int) (stopped, known bool) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task/"
	tasks, err := os.ReadDir(dir)
	if err != nil || len(tasks) == 0 {
		return false, false
	}
	for _, task := range tasks {
		stat, err := os.ReadFile(dir + task.Name() + "/stat")
		if err != nil {
			continue // the thread is gone
		}
		i := strings.LastIndexByte(string(stat), ')')
		if i < 0 || i+2 >= len(stat) {
			return false, false
		}
		if state := stat[i+2]; state != 'T' && state != 't' {
			return false, true
		}
	}
	return true, true
}

// Start returns the start time of process pid (in clock ticks since
// boot) and whether it runs; a zombie does not. Where there is no /proc
// it says only whether it runs, through ps.
func Start(pid int) (start string, running bool) {
	if !available() {
		return "", Cmdline(pid) != ""
	}
	f, ok := statFields(pid)
	if !ok || len(f) < 20 || f[0] == "Z" || f[0] == "X" {
		return "", false
	}
	return f[19], true
}

// userHZ is the unit of /proc/PID/stat's CPU times: USER_HZ, 100 on every
// Linux architecture lockbench runs on (sysconf(_SC_CLK_TCK)).
const userHZ = 100

// CPU is the user and system CPU time process pid has used, all its
// threads, from /proc/PID/stat (in steps of 10 ms); false when the process
// is gone or there is no /proc.
func CPU(pid int) (time.Duration, bool) {
	f, ok := statFields(pid)
	if !ok || len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * time.Second / userHZ, true
}

// SelfCPU is the user and system CPU this process has used so far, all
// its threads (getrusage: exact, where CPU's /proc figure is in 10 ms
// steps).
func SelfCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru) // cannot fail with RUSAGE_SELF
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// Cmdline is the command line of process pid, arguments joined by spaces
// (redis-server rewrites its own to "redis-server 127.0.0.1:port"); ""
// when the process is gone or is a zombie.
func Cmdline(pid int) string {
	if !available() {
		state, cmd, _ := strings.Cut(ps(pid, "stat=,command="), " ")
		if state == "" || strings.HasPrefix(state, "Z") {
			return ""
		}
		return strings.TrimSpace(cmd)
	}
	if f, ok := statFields(pid); !ok || len(f) == 0 || f[0] == "Z" {
		return ""
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(strings.ReplaceAll(string(b), "\x00", " "))
}

// StatusKiB is the field of /proc/PID/status measured in kB (VmRSS the
// resident memory, VmHWM its peak), in KiB; pid 0 is this process. false
// when there is no such field or process (not Linux, or it has exited).
func StatusKiB(pid int, field string) (int64, bool) {
	path := "/proc/self/status"
	if pid != 0 {
		path = "/proc/" + strconv.Itoa(pid) + "/status"
	}
	return kiBField(path, field)
}

// MemAvailableKiB is the memory this machine has available for new
// processes (MemAvailable of /proc/meminfo), in KiB; false where there is
// none.
func MemAvailableKiB() (int64, bool) {
	return kiBField("/proc/meminfo", "MemAvailable")
}

// kiBField reads the line "field: N kB" of a /proc file.
func kiBField(path, field string) (int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		rest, ok := strings.CutPrefix(s.Text(), field+":")
		if !ok {
			continue
		}
		if fields := strings.Fields(rest); len(fields) > 0 {
			n, err := strconv.ParseInt(fields[0], 10, 64)
			return n, err == nil
		}
		return 0, false
	}
	return 0, false
}

// LoadAverage is the machine's load average over the last minute (the
// first field of /proc/loadavg); false where there is none.
func LoadAverage() (float64, bool) {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, false
	}
	fields := strings.Fields(string(data))
	if len(fields) == 0 {
		return 0, false
	}
	load, err := strconv.ParseFloat(fields[0], 64)
	return load, err == nil
}

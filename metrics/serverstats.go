package metrics

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/lockbench/lockbench/measure"
	"github.com/lockbench/lockbench/redisinfo"
)

// ErrBadInfo is wrapped by every error of parsing Redis INFO text. It is
// redisinfo.ErrMalformed: the sections come from that package's parser.
var ErrBadInfo = redisinfo.ErrMalformed

// CommandStat is one command's line of INFO commandstats: how many times
// the server ran it and the microseconds it spent in it, in total since it
// started (or since CONFIG RESETSTAT).
type CommandStat struct {
	Calls     int64 `json:"calls"`
	UsecTotal int64 `json:"usec_total"`
}

// CPU is the CPU time a Redis process has used since it started: INFO
// cpu's used_cpu_user and used_cpu_sys, all its threads, without children
// (fork for RDB, AOF rewrite).
type CPU struct {
	UserS float64 `json:"user_s"`
	SysS  float64 `json:"sys_s"`
}

// Seconds is user plus system time.
func (c CPU) Seconds() float64 { return c.UserS + c.SysS }

// ParseCommandStats reads the "# Commandstats" section of INFO text, lines
// such as
//
//	cmdstat_set:calls=3,usec=12,usec_per_call=4.00,rejected_calls=0,failed_calls=0
//
// into a map from lower-case command name to its stat. Redis 7 names
// subcommands with a bar (client|setname); they are kept as given. Fields
// other than calls and usec are ignored. A section with no commands gives an
// empty map; a missing section or a malformed line is an error wrapping
// ErrBadInfo.
func ParseCommandStats(info string) (map[string]CommandStat, error) {
	lines, err := redisinfo.Lines(info, "commandstats")
	if err != nil {
		return nil, err
	}
	stats := make(map[string]CommandStat, len(lines))
	for _, line := range lines {
		rest, ok := strings.CutPrefix(line, "cmdstat_")
		name, fields, ok2 := strings.Cut(rest, ":")
		if !ok || !ok2 || name == "" {
			return nil, fmt.Errorf("%w: commandstats line %q is not cmdstat_<name>:<fields>", ErrBadInfo, line)
		}
		name = strings.ToLower(name)
		if _, dup := stats[name]; dup {
			return nil, fmt.Errorf("%w: command %q listed twice", ErrBadInfo, name)
		}
		var st CommandStat
		var haveCalls, haveUsec bool
		for field := range strings.SplitSeq(fields, ",") {
			key, value, _ := strings.Cut(field, "=")
			var dst *int64
			switch key {
			case "calls":
				dst, haveCalls = &st.Calls, true
			case "usec":
				dst, haveUsec = &st.UsecTotal, true
			default:
				continue
			}
			n, err := strconv.ParseInt(value, 10, 64)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%w: %s of %q is %q, not a count", ErrBadInfo, key, name, value)
			}
			*dst = n
		}
		if !haveCalls || !haveUsec {
			return nil, fmt.Errorf("%w: commandstats line %q lacks calls= or usec=", ErrBadInfo, line)
		}
		stats[name] = st
	}
	return stats, nil
}

// ParseCPU reads used_cpu_user and used_cpu_sys from the "# CPU" section
// of INFO text (the _children and _main_thread figures are ignored). A
// missing section or figure, or one that is not a non-negative number, is
// an error wrapping ErrBadInfo.
func ParseCPU(info string) (CPU, error) {
	lines, err := redisinfo.Lines(info, "cpu")
	if err != nil {
		return CPU{}, err
	}
	var cpu CPU
	var haveUser, haveSys bool
	for _, line := range lines {
		key, value, _ := strings.Cut(line, ":")
		var dst *float64
		switch key {
		case "used_cpu_user":
			dst, haveUser = &cpu.UserS, true
		case "used_cpu_sys":
			dst, haveSys = &cpu.SysS, true
		default:
			continue
		}
		f, err := strconv.ParseFloat(value, 64)
		if err != nil || f < 0 || math.IsNaN(f) {
			return CPU{}, fmt.Errorf("%w: %s is %q, not seconds", ErrBadInfo, key, value)
		}
		*dst = f
	}
	if !haveUser || !haveSys {
		return CPU{}, fmt.Errorf("%w: CPU section lacks used_cpu_user or used_cpu_sys", ErrBadInfo)
	}
	return cpu, nil
}

// ServerSnapshot is what one Redis node reported at one moment: its
// commandstats and CPU time.
type ServerSnapshot struct {
	// Node identifies the node (its topology name, or its address);
	// Cost pairs snapshots by it.
	Node string `json:"node"`
	// Role is master, replica or sentinel.
	Role     string                 `json:"role"`
	Commands map[string]CommandStat `json:"commands"`
	CPU      CPU                    `json:"cpu"`
}

// ServerCost is what Redis spent between two sets of snapshots.
type ServerCost struct {
	// Commands is how many commands the masters (the nodes clients send
	// to) ran, without housekeeping (see Cost). Like Redis, it counts the
	// commands Lua scripts run (redis.call) besides the EVAL or EVALSHA.
	Commands int64 `json:"commands"`
	// ByCommand is Commands per command name.
	ByCommand map[string]int64 `json:"by_command"`
	// Housekeeping is how many housekeeping commands the masters ran,
	// lockbench's own snapshots among them; they are not in Commands.
	Housekeeping int64 `json:"housekeeping_commands"`
	// CPUSeconds is the user+sys CPU time of every data node, replicas
	// included, sentinels not.
	CPUSeconds float64 `json:"cpu_seconds"`
	// Nodes is the cost per node, in the order of the later snapshots.
	Nodes []measure.NodeCost `json:"nodes"`
}

// housekeeping are the commands that set up connections, find the
// topology, replicate and monitor: no lock sends them, while lockbench's
// snapshots (a connection, then INFO), its clients' connection setup and
// cluster discovery, replicas and sentinels send them between snapshots.
// Subcommands (client|setname, cluster|slots, ...) go with their command.
var housekeeping = map[string]bool{
	"auth": true, "hello": true, "select": true, "ping": true, "client": true, "info": true,
	"command": true, "cluster": true, "readonly": true, "replconf": true, "psync": true, "sync": true,
}

// isHousekeeping reports whether the command called name is housekeeping.
func isHousekeeping(name string) bool {
	command, _, _ := strings.Cut(name, "|")
	return housekeeping[command]
}

// Cost is what the servers spent between the snapshots before and after,
// paired by Node; a node found in only one of them is left out, and so are
// sentinels. Commands counts the calls on masters (the role in after), not
// counting housekeeping: connection setup (auth, hello, select, ping,
// client ...), topology discovery (cluster ..., command ..., readonly),
// replication (replconf, psync, sync) and monitoring (info), which is where
// lockbench's own snapshots land. When a node's counters went backwards (it
// restarted), its cost counts from zero: the after figures. (Each counts
// on its own: CONFIG RESETSTAT resets the commands, not the CPU time.)
func Cost(before, after []ServerSnapshot) ServerCost {
	earlier := make(map[string]ServerSnapshot, len(before))
	for _, s := range before {
		earlier[s.Node] = s
	}
	cost := ServerCost{ByCommand: map[string]int64{}}
	for _, a := range after {
		b, ok := earlier[a.Node]
		if !ok || a.Role == "sentinel" {
			continue
		}
		commandsBefore, cpuBefore := b.Commands, b.CPU.Seconds()
		if countersReset(b.Commands, a.Commands) {
			commandsBefore = nil
		}
		if a.CPU.Seconds() < cpuBefore {
			cpuBefore = 0
		}
		node := measure.NodeCost{Node: a.Node, Role: a.Role, CPUSeconds: a.CPU.Seconds() - cpuBefore}
		master := a.Role == "master"
		for name, st := range a.Commands {
			calls := st.Calls - commandsBefore[name].Calls
			switch {
			case calls <= 0:
			case isHousekeeping(name):
				if master {
					cost.Housekeeping += calls
				}
			default:
				node.Commands += calls
				if master {
					cost.Commands += calls
					cost.ByCommand[name] += calls
				}
			}
		}
		cost.CPUSeconds += node.CPUSeconds
		cost.Nodes = append(cost.Nodes, node)
	}
	return cost
}

// countersReset reports whether a command counter went backwards from
// before to after, as when the process restarted (or CONFIG RESETSTAT ran).
func countersReset(before, after map[string]CommandStat) bool {
	for name, st := range before {
		if later := after[name]; later.Calls < st.Calls || later.UsecTotal < st.UsecTotal {
			return true
		}
	}
	return false
}

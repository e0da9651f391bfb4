package metrics

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"strings"
	"testing"

	"github.com/lockbench/lockbench/measure"
)

// capturedInfo is the reply of `INFO server cpu replication errorstats
// commandstats latencystats` from redis-server 7.0.15 (Server section cut
// short), after a few commands including a rejected one (setex without
// arguments) and a failed one (EVALSHA answered NOSCRIPT). Redis ends its
// lines with \r\n; the tests add them back.
const capturedInfo = `# Server
redis_version:7.0.15
redis_git_sha1:00000000
process_supervised:no
run_id:0a25843a50b7fa58e2cfe4b3103a140e22ada9ce
tcp_port:16391
config_file:
io_threads_active:0

# Replication
role:master
connected_slaves:0
master_failover_state:no-failover
master_replid:c679267b6a3a9d46be93f0b31c2aa636125bc6d2
master_replid2:0000000000000000000000000000000000000000
master_repl_offset:0
second_repl_offset:-1
repl_backlog_active:0
repl_backlog_size:1048576
repl_backlog_first_byte_offset:0
repl_backlog_histlen:0

# CPU
used_cpu_sys:0.069367
used_cpu_user:0.039554
used_cpu_sys_children:0.000000
used_cpu_user_children:0.000000
used_cpu_sys_main_thread:0.065090
used_cpu_user_main_thread:0.043393

# Commandstats
cmdstat_ping:calls=3,usec=2,usec_per_call=0.67,rejected_calls=0,failed_calls=0
cmdstat_object|encoding:calls=1,usec=3,usec_per_call=3.00,rejected_calls=0,failed_calls=0
cmdstat_config|get:calls=1,usec=56,usec_per_call=56.00,rejected_calls=0,failed_calls=0
cmdstat_info:calls=6,usec=798,usec_per_call=133.00,rejected_calls=0,failed_calls=0
cmdstat_get:calls=1,usec=6,usec_per_call=6.00,rejected_calls=0,failed_calls=0
cmdstat_client|setname:calls=1,usec=3,usec_per_call=3.00,rejected_calls=0,failed_calls=0
cmdstat_client|list:calls=1,usec=30,usec_per_call=30.00,rejected_calls=0,failed_calls=0
cmdstat_del:calls=1,usec=27,usec_per_call=27.00,rejected_calls=0,failed_calls=0
cmdstat_eval:calls=1,usec=178,usec_per_call=178.00,rejected_calls=0,failed_calls=0
cmdstat_set:calls=1,usec=9,usec_per_call=9.00,rejected_calls=0,failed_calls=0
cmdstat_evalsha:calls=1,usec=5,usec_per_call=5.00,rejected_calls=0,failed_calls=1
cmdstat_setex:calls=0,usec=0,usec_per_call=0.00,rejected_calls=1,failed_calls=0
cmdstat_hello:calls=2,usec=360,usec_per_call=180.00,rejected_calls=0,failed_calls=0

# Errorstats
errorstat_ERR:count=4
errorstat_NOSCRIPT:count=1

# Latencystats
latency_percentiles_usec_ping:p50=1.003,p99=1.003,p99.9=1.003
latency_percentiles_usec_set:p50=9.023,p99=9.023,p99.9=9.023
latency_percentiles_usec_evalsha:p50=5.023,p99=5.023,p99.9=5.023
`

// crlf is text with Redis' line ends.
func crlf(text string) string { return strings.ReplaceAll(text, "\n", "\r\n") }

// The ways INFO text arrives: as Redis writes it, with bare line ends, and
// as a RESP3 verbatim string (rueidis hands those over with "txt:").
var infoForms = map[string]func(string) string{
	"crlf":     crlf,
	"lf":       func(s string) string { return s },
	"verbatim": func(s string) string { return "txt:" + crlf(s) },
}

func TestParseCommandStatsCaptured(t *testing.T) {
	want := map[string]CommandStat{
		"ping": {3, 2}, "object|encoding": {1, 3}, "config|get": {1, 56}, "info": {6, 798},
		"get": {1, 6}, "client|setname": {1, 3}, "client|list": {1, 30}, "del": {1, 27},
		"eval": {1, 178}, "set": {1, 9}, "evalsha": {1, 5}, "setex": {0, 0}, "hello": {2, 360},
	}
	for form, encode := range infoForms {
		t.Run(form, func(t *testing.T) {
			got, err := ParseCommandStats(encode(capturedInfo))
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(got, want) {
				t.Errorf("got %v\nwant %v", got, want)
			}
		})
	}
}

func TestParseCommandStatsLenient(t *testing.T) {
	for _, tc := range []struct {
		name, info string
		want       map[string]CommandStat
	}{
		{"empty section", "# Commandstats\r\n", map[string]CommandStat{}},
		{"section name in other case", "# commandstats\ncmdstat_get:calls=1,usec=2\n", map[string]CommandStat{"get": {1, 2}}},
		{"extra and reordered fields", "# Commandstats\ncmdstat_set:usec=12,future=x,calls=3,usec_per_call=4.00,rejected_calls=0\n",
			map[string]CommandStat{"set": {3, 12}}},
		{"upper-case name", "# Commandstats\ncmdstat_SET:calls=3,usec=12\n", map[string]CommandStat{"set": {3, 12}}},
		{"blank lines and other sections", "# CPU\nused_cpu_sys:1.0\n\n# Commandstats\n\ncmdstat_del:calls=1,usec=1\n\n# Errorstats\nerrorstat_ERR:count=4\n",
			map[string]CommandStat{"del": {1, 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseCommandStats(tc.info)
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestParseCommandStatsMalformed(t *testing.T) {
	for _, tc := range []struct{ name, info string }{
		{"empty", ""},
		{"no section", "# Server\r\nredis_version:7.0.15\r\n"},
		{"section twice", "# Commandstats\ncmdstat_get:calls=1,usec=2\n# Commandstats\n"},
		{"no prefix", "# Commandstats\nset:calls=1,usec=2\n"},
		{"no colon", "# Commandstats\ncmdstat_set calls=1,usec=2\n"},
		{"no name", "# Commandstats\ncmdstat_:calls=1,usec=2\n"},
		{"no calls", "# Commandstats\ncmdstat_set:usec=2,usec_per_call=2.00\n"},
		{"no usec", "# Commandstats\ncmdstat_set:calls=1\n"},
		{"calls not a number", "# Commandstats\ncmdstat_set:calls=many,usec=2\n"},
		{"calls fractional", "# Commandstats\ncmdstat_set:calls=1.5,usec=2\n"},
		{"negative usec", "# Commandstats\ncmdstat_set:calls=1,usec=-2\n"},
		{"overflow", "# Commandstats\ncmdstat_set:calls=99999999999999999999,usec=2\n"},
		{"duplicate", "# Commandstats\ncmdstat_set:calls=1,usec=2\ncmdstat_SET:calls=1,usec=2\n"},
		{"truncated", "# Commandstats\r\ncmdstat_set:calls=1,us"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseCommandStats(tc.info)
			if !errors.Is(err, ErrBadInfo) {
				t.Errorf("got %v, %v; want an error wrapping ErrBadInfo", got, err)
			}
		})
	}
}

func TestParseCPU(t *testing.T) {
	for form, encode := range infoForms {
		t.Run(form, func(t *testing.T) {
			got, err := ParseCPU(encode(capturedInfo))
			if err != nil {
				t.Fatal(err)
			}
			if want := (CPU{UserS: 0.039554, SysS: 0.069367}); got != want {
				t.Errorf("got %+v, want %+v (not the _main_thread or _children figures)", got, want)
			}
		})
	}
}

func TestParseCPUMalformed(t *testing.T) {
	for _, tc := range []struct{ name, info string }{
		{"empty", ""},
		{"no section", "# Server\nused_cpu_sys:1\nused_cpu_user:1\n"},
		{"no user", "# CPU\nused_cpu_sys:0.5\nused_cpu_user_children:0.1\n"},
		{"no sys", "# CPU\nused_cpu_user:0.5\nused_cpu_sys_main_thread:0.1\n"},
		{"not a number", "# CPU\nused_cpu_sys:lots\nused_cpu_user:0.5\n"},
		{"negative", "# CPU\nused_cpu_sys:-0.5\nused_cpu_user:0.5\n"},
		{"NaN", "# CPU\nused_cpu_sys:NaN\nused_cpu_user:0.5\n"},
		{"in another section", "# CPU\n# Stats\nused_cpu_sys:0.5\nused_cpu_user:0.5\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseCPU(tc.info)
			if !errors.Is(err, ErrBadInfo) {
				t.Errorf("got %+v, %v; want an error wrapping ErrBadInfo", got, err)
			}
		})
	}
}

// snap builds a snapshot with calls of commands (usec = calls) and CPU
// seconds split evenly over user and sys.
func snap(node, role string, cpu float64, calls map[string]int64) ServerSnapshot {
	s := ServerSnapshot{Node: node, Role: role, CPU: CPU{UserS: cpu / 2, SysS: cpu / 2}, Commands: map[string]CommandStat{}}
	for name, n := range calls {
		s.Commands[name] = CommandStat{Calls: n, UsecTotal: n}
	}
	return s
}

func TestCost(t *testing.T) {
	for _, tc := range []struct {
		name          string
		before, after []ServerSnapshot
		want          ServerCost
	}{
		{
			name: "master, replica and sentinel",
			before: []ServerSnapshot{
				snap("master", "master", 1.0, map[string]int64{"set": 5, "info": 3, "hello": 2}),
				snap("replica-1", "replica", 0.5, map[string]int64{"set": 5, "replconf": 9}),
				snap("sentinel-1", "sentinel", 0.2, map[string]int64{"ping": 10}),
			},
			after: []ServerSnapshot{
				// 100 SET + 100 EVALSHA (1 NOSCRIPT, then EVAL), lockbench's
				// INFO and the next snapshot's HELLO and PING.
				snap("master", "master", 1.25, map[string]int64{"set": 105, "evalsha": 100, "eval": 1, "info": 4, "hello": 3, "ping": 1, "client|setinfo": 2}),
				snap("replica-1", "replica", 0.6, map[string]int64{"set": 105, "multi": 100, "del": 100, "exec": 100, "replconf": 20}),
				snap("sentinel-1", "sentinel", 0.3, map[string]int64{"ping": 20}),
			},
			want: ServerCost{
				Commands: 201, ByCommand: map[string]int64{"set": 100, "evalsha": 100, "eval": 1},
				Housekeeping: 5, CPUSeconds: 0.35,
				Nodes: []measure.NodeCost{{Node: "master", Role: "master", Commands: 201, CPUSeconds: 0.25}, {Node: "replica-1", Role: "replica", Commands: 400, CPUSeconds: 0.1}},
			},
		},
		{
			name: "cluster masters add up",
			before: []ServerSnapshot{
				snap("master-1", "master", 1, map[string]int64{"set": 1}),
				snap("master-2", "master", 1, nil),
				snap("master-3", "master", 1, map[string]int64{"cluster|slots": 4}),
			},
			after: []ServerSnapshot{
				snap("master-1", "master", 1.5, map[string]int64{"set": 11, "del": 10}),
				snap("master-2", "master", 1.5, map[string]int64{"set": 20, "del": 19}),
				snap("master-3", "master", 1.5, map[string]int64{"cluster|slots": 5, "set": 2}),
			},
			want: ServerCost{
				Commands: 61, ByCommand: map[string]int64{"set": 32, "del": 29}, Housekeeping: 1, CPUSeconds: 1.5,
				Nodes: []measure.NodeCost{{Node: "master-1", Role: "master", Commands: 20, CPUSeconds: 0.5}, {Node: "master-2", Role: "master", Commands: 39, CPUSeconds: 0.5}, {Node: "master-3", Role: "master", Commands: 2, CPUSeconds: 0.5}},
			},
		},
		{
			name:   "restarted node counts from zero",
			before: []ServerSnapshot{snap("node-1", "master", 9, map[string]int64{"set": 500, "del": 400})},
			after:  []ServerSnapshot{snap("node-1", "master", 0.25, map[string]int64{"set": 30, "del": 420})},
			want: ServerCost{Commands: 450, ByCommand: map[string]int64{"set": 30, "del": 420}, CPUSeconds: 0.25,
				Nodes: []measure.NodeCost{{Node: "node-1", Role: "master", Commands: 450, CPUSeconds: 0.25}}},
		},
		{
			name:   "CONFIG RESETSTAT resets commands, not CPU",
			before: []ServerSnapshot{snap("node-1", "master", 2, map[string]int64{"set": 500})},
			after:  []ServerSnapshot{snap("node-1", "master", 2.5, map[string]int64{"set": 7})},
			want: ServerCost{Commands: 7, ByCommand: map[string]int64{"set": 7}, CPUSeconds: 0.5,
				Nodes: []measure.NodeCost{{Node: "node-1", Role: "master", Commands: 7, CPUSeconds: 0.5}}},
		},
		{
			name:   "unpaired nodes are left out",
			before: []ServerSnapshot{snap("gone", "master", 1, map[string]int64{"set": 1}), snap("kept", "master", 1, nil)},
			after:  []ServerSnapshot{snap("new", "master", 5, map[string]int64{"set": 100}), snap("kept", "master", 1, map[string]int64{"get": 1})},
			want: ServerCost{Commands: 1, ByCommand: map[string]int64{"get": 1},
				Nodes: []measure.NodeCost{{Node: "kept", Role: "master", Commands: 1, CPUSeconds: 0}}},
		},
		{
			name:   "role of the later snapshot",
			before: []ServerSnapshot{snap("a", "master", 1, nil), snap("b", "replica", 1, nil)},
			after:  []ServerSnapshot{snap("a", "replica", 1, map[string]int64{"set": 4}), snap("b", "master", 1, map[string]int64{"set": 6})},
			want: ServerCost{Commands: 6, ByCommand: map[string]int64{"set": 6},
				Nodes: []measure.NodeCost{{Node: "a", Role: "replica", Commands: 4, CPUSeconds: 0}, {Node: "b", Role: "master", Commands: 6, CPUSeconds: 0}}},
		},
		{
			name: "nothing",
			want: ServerCost{ByCommand: map[string]int64{}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Cost(tc.before, tc.after)
			if got.Commands != tc.want.Commands || got.Housekeeping != tc.want.Housekeeping ||
				!maps.Equal(got.ByCommand, tc.want.ByCommand) || !near(got.CPUSeconds, tc.want.CPUSeconds) ||
				len(got.Nodes) != len(tc.want.Nodes) {
				t.Fatalf("got %+v\nwant %+v", got, tc.want)
			}
			for i, n := range got.Nodes {
				w := tc.want.Nodes[i]
				if n.Node != w.Node || n.Role != w.Role || n.Commands != w.Commands || !near(n.CPUSeconds, w.CPUSeconds) {
					t.Errorf("node %d: got %+v, want %+v", i, n, w)
				}
			}
		})
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func FuzzParseCommandStats(f *testing.F) {
	f.Add(crlf(capturedInfo))
	f.Add("# Commandstats\ncmdstat_set:calls=1,usec=2\n")
	f.Add("txt:# Commandstats\r\ncmdstat_client|setname:calls=1,usec=2,x=y\r\n")
	f.Fuzz(func(t *testing.T, info string) {
		stats, err := ParseCommandStats(info)
		if err != nil {
			if !errors.Is(err, ErrBadInfo) {
				t.Errorf("error %v does not wrap ErrBadInfo", err)
			}
			return
		}
		for name, st := range stats {
			if name == "" || name != strings.ToLower(name) || st.Calls < 0 || st.UsecTotal < 0 {
				t.Errorf("%q: %+v", name, st)
			}
		}
	})
}

func FuzzParseCPU(f *testing.F) {
	f.Add(crlf(capturedInfo))
	f.Add("# CPU\nused_cpu_sys:1\nused_cpu_user:2\n")
	f.Fuzz(func(t *testing.T, info string) {
		cpu, err := ParseCPU(info)
		if err != nil {
			if !errors.Is(err, ErrBadInfo) {
				t.Errorf("error %v does not wrap ErrBadInfo", err)
			}
			return
		}
		if !(cpu.UserS >= 0 && cpu.SysS >= 0) {
			t.Errorf("%+v", cpu)
		}
	})
}

// Cost of 100 lua-release cycles on one node, from the snapshots taken
// around them.
func ExampleCost() {
	before := []ServerSnapshot{{Node: "master", Role: "master", CPU: CPU{UserS: 0.040, SysS: 0.069},
		Commands: map[string]CommandStat{"hello": {1, 300}, "ping": {1, 1}}}}
	after := []ServerSnapshot{{Node: "master", Role: "master", CPU: CPU{UserS: 0.041, SysS: 0.070},
		Commands: map[string]CommandStat{"hello": {2, 600}, "ping": {2, 2}, "info": {1, 90},
			"set": {100, 400}, "evalsha": {100, 900}, "eval": {1, 150}}}}
	cost := Cost(before, after)
	fmt.Println(cost.Commands, cost.ByCommand, cost.Housekeeping)
	fmt.Printf("%.0f µs of CPU per cycle\n", cost.CPUSeconds/100*1e6)
	// Output:
	// 201 map[eval:1 evalsha:100 set:100] 3
	// 20 µs of CPU per cycle
}

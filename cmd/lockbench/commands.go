package main

import (
	"context"
	"io"
	"strings"

	"github.com/lockbench/lockbench/record"
	"github.com/lockbench/lockbench/topologies"
)

// command is a subcommand of lockbench, or a group of them (topology up,
// topology down). Its help, on --help, -h and lockbench help NAME, is made
// from these fields and its flags by writeHelp.
type command struct {
	name     string    // as typed after lockbench: "compare", "topology up"
	args     []string  // the arguments of each form of its usage line, after [flags]
	summary  string    // its line in lockbench --help
	about    string    // what it does; writeHelp wraps it
	examples []example // two to four of real use
	actions  []command // of a group
	// run runs the command with the arguments after its name; nil for a
	// group. Asked for help, it returns the helpRequest of its flags.
	run func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

// example is a use of lockbench: what it does, then its command lines.
type example struct {
	comment string
	lines   []string
}

// withoutContext adapts a command that needs no context.
func withoutContext(f func(args []string, stdout, stderr io.Writer) error) func(context.Context, []string, io.Writer, io.Writer) error {
	return func(_ context.Context, args []string, stdout, stderr io.Writer) error { return f(args, stdout, stderr) }
}

// commands are lockbench's commands, in the order of its help.
var commands = []command{{
	name:    "run",
	summary: "run variants side by side on one workload and print one table",
	about: "Runs each variant (a lock or semaphore design) on the same workload and Redis, a cell per variant " +
		"and client count, and prints one table: throughput, acquire latency, Redis commands per acquisition, " +
		"fairness, and the violations of mutual exclusion an oracle counted. Without --topology, --target, " +
		"--cluster or --sentinel it starts a redis-server of its own on a free loopback port. The record is " +
		"saved (default " + record.DefaultDir + "/<run-id>.json). Flags given beside --scenario override its settings.\n" +
		"Exit status: 0 done, 1 a --check failed, 2 bad input, 3 the run failed, 130 interrupted " +
		"(what was measured is saved).",
	examples: []example{
		{"Three lock designs, 8 clients on one lock name, 5 s measured per variant",
			[]string{"lockbench run --variants set-nx-ex,lua-release,watchdog --clients 8 --duration 5s"}},
		{"A semaphore of 5 permits under 32 clients whose clocks are up to 2 s apart",
			[]string{"lockbench run --variants sem-basic,sem-fair --clients 32 --limit 5 --duration 3s \\",
				"    --clock-skew uniform:-1s..1s"}},
		{"Pause the master for 500 ms in each cell; exit status 1 if any overlap is counted",
			[]string{"lockbench run --variants lua-release,watchdog --duration 3s --check overlaps==0 \\",
				"    --fault 'at=1s pause node=master for=500ms'"}},
		{"A server of your own (password, if any, in $" + topologies.PasswordEnv + "), CSV out",
			[]string{"lockbench run --target redis://127.0.0.1:6379 --variants lua-release --duration 3s --format csv"}},
	},
	run: runRun,
}, {
	name:    "sweep",
	summary: "step clients (or rate) up to an SLO, fit the scalability model, plan Redis nodes",
	about: "Takes the flags of run except --repeat, --check, --rate and --stages, and per variant runs one step " +
		"after another, raising --clients or, with --rates, the offered rate of an open loop. A variant's sweep " +
		"stops at the first step that breaks an --slo threshold, when throughput has not risen by --min-gain " +
		"for two steps in a row, or when an open-loop step saturates. Then it prints, per variant, the highest " +
		"throughput within the SLO, the knee, a fit of the Universal Scalability Law and, with --target-rate, " +
		"the Redis nodes (masters) that rate needs.",
	examples: []example{
		{"Step lua-release up to 16 clients, 2 s a step, until its acquire p99 passes 5 ms",
			[]string{"lockbench sweep --variants lua-release --clients 1,2,4,8,16 --duration 2s --slo 'acquire.p99<5ms'"}},
		{"How many Redis nodes for 200000 acquisitions per second spread over 64 lock names?",
			[]string{"lockbench sweep --variants set-nx-ex --keys 64 --hold 0 --duration 1s --target-rate 200000"}},
		{"Sweep the offered rate instead (open loop, at most 64 clients in progress)",
			[]string{"lockbench sweep --variants lua-release --rates 500,1000,2000 --duration 2s"}},
	},
	run: runSweep,
}, {
	name:    "compare",
	args:    []string{"OLD.json NEW.json"},
	summary: "compare two records over their repetitions, like benchstat; --fail-on gates CI",
	about: "Compares two records (of run, sweep or merge) cell by cell; cells match by variant, client, clients, " +
		"keys and limit. Per figure it shows each side's median with its 95 % confidence interval and the change, " +
		"when the Mann-Whitney U test finds it significant at --alpha. The repetitions of a cell (run --repeat N) " +
		"are its samples: 4 a side are needed for a change to be significant, 6 for a confidence interval. " +
		"Exit status 1 when a --fail-on rule fails, 2 on bad input.",
	examples: []example{
		{"Two records of 6 repetitions each, the second with twice the hold time, compared",
			[]string{"lockbench run --variants lua-release --duration 1s --repeat 6 --out old.json",
				"lockbench run --variants lua-release --duration 1s --repeat 6 --hold 2ms --out new.json",
				"lockbench compare old.json new.json"}},
		{"The CI gate: exit status 1 on a significant drop in throughput of over 20 % (as here)",
			[]string{"lockbench compare old.json new.json --fail-on 'throughput:-20%'"}},
		{"As make regress does: the regression suite, then against the committed baseline",
			[]string{"lockbench run --scenario results/baselines/regress.yaml --out regress.json",
				"lockbench compare results/baselines/regress.json regress.json --fail-on 'acquire.p99:+50%'"}},
	},
	run: withoutContext(runCompare),
}, {
	name:    "merge",
	args:    []string{"-o MERGED.json RECORD.json...", "-o MERGED.json --witness URL --run-id ID"},
	summary: "merge the records of the shards of one load (run --shard i/N) into one record",
	about: "Merges the records of the shards of one load (run --shard i/N --run-id ID) into one: histograms " +
		"exactly, counters and throughputs summed; a record of another configuration is refused. A missing " +
		"shard is said on stderr, and the merge goes on. With --witness and --run-id it takes the records the " +
		"shards left in their witness (run --witness URL), beside any given as files.",
	examples: []example{
		{"Three shards of one load on one server, then their records merged",
			[]string{"for i in 1 2 3; do lockbench run --target redis://127.0.0.1:6379 --variants lua-release \\",
				"    --clients 6 --duration 3s --run-id demo --shard $i/3 --quiet & done; wait",
				"lockbench merge results/runs/demo.shard-*-of-3.json -o demo.json"}},
		{"With a witness, a Redis of their own where the shards are checked together",
			[]string{"for i in 1 2 3; do lockbench run --target redis://127.0.0.1:6379 --variants lua-release \\",
				"    --witness redis://127.0.0.1:6380 --clients 6 --duration 3s --run-id demo-w --shard $i/3 \\",
				"    --quiet & done; wait",
				"lockbench merge --witness redis://127.0.0.1:6380 --run-id demo-w -o demo-w.json"}},
	},
	run: runMerge,
}, {
	name:    "report",
	args:    []string{"-o REPORT.html RECORD.json..."},
	summary: "write records as one self-contained HTML page with charts",
	about: "Renders records (of run, sweep or merge) into one HTML page that opens offline, a section per record: " +
		"the summary table, each cell's acquire latency spectrum, throughput, p99 and overlaps per second with " +
		"the faults marked, acquisitions per client, and a sweep's steps with its fitted curve. " +
		"run --report FILE writes the same page for its own record.",
	examples: []example{
		{"Every record saved so far, on one page", []string{"lockbench report results/runs/*.json -o report.html"}},
		{"Two records side by side, with a title of their own",
			[]string{"lockbench report old.json new.json -o report.html --title 'hold 1ms against 2ms'"}},
		{"A run that writes its own page: a 500 ms pause of the master in each cell",
			[]string{"lockbench run --duration 3s --fault 'at=1s pause node=master for=500ms' --report report.html"}},
	},
	run: withoutContext(runReport),
}, {
	name:    "check",
	args:    []string{"DIR | HISTORY.jsonl..."},
	summary: "check the histories run --history wrote, with porcupine",
	about: "Checks each history that lockbench run --history DIR wrote, with porcupine, against a lock (a semaphore " +
		"of the history's limit) per lock name, independently of the oracle that counted violations during the run. " +
		"Prints per history whether it is linearizable and, for one that is not, the shortest offending window: the " +
		"leases that cannot be ordered, their clients and span. Takes the directory or any of its files: a CELL.edn " +
		"is checked from the CELL.jsonl beside it, a drawing passed over, each with a note. Exit status 1 when a " +
		"history is not linearizable, 2 when one cannot be read.",
	examples: []example{
		{"Histories of the long-hold scenario, then every one checked",
			[]string{"lockbench run --scenario long-hold --history histories", "lockbench check histories"}},
		{"Porcupine's drawing of a failing history", []string{"lockbench check -o window.html histories/lua-release-c8.jsonl"}},
		{"What the lock vouched for (its leases), not the critical sections",
			[]string{"lockbench check --view leases histories/lua-release-c8.jsonl"}},
	},
	run: withoutContext(runCheck),
}, {
	name:    "variants",
	args:    []string{"[NAME]"},
	summary: "list the lock and semaphore designs with their claims",
	about: "Lists the variants run --variants takes: each one's kind, what it claims, its default retry, the " +
		"topologies and client libraries it runs on, where it comes from, and how it works. The list fits 100 " +
		"columns; variants NAME gives one in full, --wide all in a table.",
	examples: []example{
		{"", []string{"lockbench variants"}},
		{"One variant in full: retry, where it runs, source, how it works", []string{"lockbench variants lua-release"}},
		{"The same as JSON", []string{"lockbench variants --format json"}},
		{"Redlock on five independent masters lockbench starts",
			[]string{"lockbench run --variants redlock --topology 'local:redlock?nodes=5' --duration 3s"}},
	},
	run: withoutContext(runVariants),
}, {
	name:    "scenarios",
	args:    []string{"[NAME]"},
	summary: "list the named scenarios (run --scenario NAME)",
	about: "Lists the named scenarios: what each reproduces, the variants it applies to, what its source " +
		"predicts, and where the claim comes from. run --scenario NAME runs one (so does a scenario file.yaml); " +
		"flags given beside it override its settings. The list fits 100 columns; scenarios NAME gives one in " +
		"full, --wide all in a table.",
	examples: []example{
		{"", []string{"lockbench scenarios"}},
		{"One scenario in full: its variants, what its source predicts, the source", []string{"lockbench scenarios long-hold"}},
		{"Tickets oversold without a lock, none with lua-release",
			[]string{"lockbench run --scenario ticket-sale"}},
		{"Two of a scenario's variants only: flags given beside it override its settings",
			[]string{"lockbench run --scenario long-hold --variants lua-release,watchdog"}},
	},
	run: withoutContext(runScenarios),
}, {
	name:    "findings",
	summary: "run every scenario and write the findings report (docs/findings.md)",
	about: "Runs every scenario (or those of --scenarios) against the variants it applies to, and writes a " +
		"markdown report of what each predicted and what was measured. All of them take several minutes.",
	examples: []example{
		{"Two scenarios only, into a file of your own",
			[]string{"lockbench findings --scenarios ticket-sale,long-hold --out findings.md"}},
		{"All of them, into docs/findings.md (as make findings does)", []string{"lockbench findings"}},
		{"The library drivers beside lockbench's designs, in every scenario that applies to each",
			[]string{"lockbench findings --variants drv:redis-py,drv:node-redlock,drv:sesame-redlock"}},
	},
	run: runFindings,
}, {
	name:    "calibrate",
	summary: "compare lockbench with redis-benchmark on one local redis-server",
	about: "Starts one redis-server and offers it the same traffic through redis-benchmark and through " +
		"lockbench: an uncontended SET key token NX PX 10000, then DEL key, per connection. It prints each " +
		"one's cycles per second and SET and DEL latencies, and whether each client library reaches its share " +
		"of redis-benchmark's cycles. Needs redis-server and redis-benchmark on PATH.",
	examples: []example{
		{"Both client libraries, 50 connections", []string{"lockbench calibrate"}},
		{"A quicker one: rueidis only, 16 connections",
			[]string{"lockbench calibrate --client rueidis --connections 16 --requests 50000 --duration 2s"}},
		{"Five pairs, for steadier medians on a busy machine", []string{"lockbench calibrate --pairs 5"}},
	},
	run: runCalibrate,
}, {
	name:    "soak",
	summary: "run a mixed workload for long; fail unless memory and goroutines stay flat",
	about: "Runs a mixed workload of locks and semaphores, short runs round-robin, for --duration on one " +
		"redis-server of its own (or on --target), and prints resident memory, heap and goroutines each " +
		"--interval. At the end it judges them: exit status 1 unless they stayed flat.",
	examples: []example{
		{"A minute, a sample every 10 s", []string{"lockbench soak --duration 1m --interval 10s"}},
		{"An hour against a server of your own", []string{"lockbench soak --duration 1h --target redis://127.0.0.1:6379"}},
	},
	run: runSoak,
}, {
	name:    "bugs",
	summary: "list the known bugs of lock libraries; bugs run [ID...] reproduces them",
	about: "Lists the catalogue of lock libraries' tracker bugs (bugs/entries): each one's library, the release its " +
		"tracker calls affected and the fixed one. bugs run runs each entry (or those named) on both versions through " +
		"the library's driver (drv:NAME@VERSION, installed on first use), --repeat times each, interleaved, and " +
		"prints in how many runs the bug was seen on each version, with a 95 % Wilson interval, and a verdict: " +
		"reproduced, not reproduced or inconclusive. --out writes the markdown report (docs/bugs.md).",
	examples: []example{{"The entries", []string{"lockbench bugs"}},
		{"All of them, five runs a version, the report rewritten", []string{"lockbench bugs run --out docs/bugs.md"}},
		{"One entry, three runs a version, every record kept", []string{"lockbench bugs run redisson-6144 --repeat 3 --records results/runs/bugs"}}},
	run: runBugs,
}, {
	name:    "drivers",
	summary: "list the lock drivers: locks of any language behind a process",
	about: "Lists the lock drivers (docs/drivers.md) lockbench knows: each folder's driver.json under --drivers, " +
		"and those given with --driver NAME=COMMAND; with each one's library, language, command, whether it can run here, " +
		"and the library versions installed. drivers install NAME@VERSION installs a driver's library at any version its " +
		"registry publishes (PyPI, npm, Maven Central) into the user's cache directory, as --variants drv:NAME@VERSION does on first use.",
	examples: []example{{"The drivers lockbench finds (make drivers builds the Go ones)", []string{"lockbench drivers"}},
		{"With one of your own beside them", []string{"lockbench drivers --driver 'mylock=python3 mylock.py'"}},
		{"redis-py 8.2.0 and Redisson 3.46.0 beside the pinned versions", []string{"lockbench drivers install redis-py@8.2.0 redisson@3.46.0"}}},
	run: runDrivers,
}, {
	name:    "driver",
	summary: "check a lock driver against the protocol and for exclusion",
	about:   "driver check runs the conformance suite of docs/drivers.md on one driver.",
	actions: []command{{
		name:    "driver check",
		args:    []string{"NAME|COMMAND"},
		summary: "run the conformance suite on a driver; exit status 1 if a check fails",
		about: "Starts a redis-server of its own and the driver (a known name, or a command line), and checks: init " +
			"and capabilities, an acquire/release round trip, exclusion, a release with a foreign token, keys under " +
			"the prefix, an acquire timeout, many requests in flight, a malformed request, the exit when stdin closes. " +
			"Exit status: 0 all passed, 1 a check failed, 2 a driver that cannot run, 130 interrupted.",
		examples: []example{{"The reference driver (after make drivers)", []string{"lockbench driver check go-lua"}},
			{"A driver of your own, by its command line", []string{"lockbench driver check 'python3 mydriver.py'"}},
			{"Its stderr shown, a shorter acquire timeout", []string{"lockbench driver check -v --acquire-timeout 500ms go-lua"}}},
		run: runDriverCheck,
	}},
}, {
	name:    "topology",
	summary: "start a local topology that stays up (up NAME), or stop it (down)",
	about: "topology up starts a topology of redis-server processes on loopback that outlives lockbench, and " +
		"prints its nodes and the run flags that reach it; topology down stops it. A state file (--state) " +
		"records what is up.",
	actions: []command{{
		name:    "topology up",
		args:    []string{"NAME"},
		summary: "start a local topology that stays up, print how to reach it",
		about: "Starts the local topology NAME (" + strings.Join(topologies.Names()[1:], ", ") + ") " +
			"and leaves it running; topology down stops it. One topology is up at a time per --state file.",
		examples: []example{
			{"A Redis Cluster of 3 masters; it prints the run flags that reach it (--cluster ADDRS)",
				[]string{"lockbench topology up local:cluster"}},
			{"A master, 2 replicas and 3 sentinels, recorded in a state file of your own",
				[]string{"lockbench topology up 'local:sentinel?replicas=2&sentinels=3' --state /tmp/sentinel.json"}},
		},
		run: runTopologyUp,
	}, {
		name:    "topology down",
		summary: "stop the topology that topology up started",
		about:   "Stops every process of the topology recorded in the state file, and removes the file.",
		examples: []example{
			{"Stop what topology up started", []string{"lockbench topology down"}},
			{"The one recorded in a state file of your own", []string{"lockbench topology down --state /tmp/sentinel.json"}},
		},
		run: runTopologyDown,
	}},
}}

// findCommand returns the command of cmds named word (the last word of
// its name), nil when none is.
func findCommand(cmds []command, word string) *command {
	for i := range cmds {
		if name := strings.Fields(cmds[i].name); name[len(name)-1] == word {
			return &cmds[i]
		}
	}
	return nil
}

// commandNames are the last words of the names of cmds.
func commandNames(cmds []command) []string {
	var names []string
	for _, c := range cmds {
		name := strings.Fields(c.name)
		names = append(names, name[len(name)-1])
	}
	return names
}

// knownCommands lists lockbench's commands for an error message.
func knownCommands() string {
	return strings.Join(append(commandNames(commands), "help"), ", ")
}

package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestBadFiles feeds every subcommand that reads input bad files and
// values: broken records to compare, merge and report; broken scenario
// files, fault specs and URLs to run and sweep. Each must fail with exit
// status 2, one line on stderr naming the file or flag and what is wrong,
// nothing on stdout, and no file written, not even a temporary one.
func TestBadFiles(t *testing.T) {
	t.Parallel() // exit statuses and messages: beside the other parallel tests.
	in := t.TempDir()
	good, err := os.ReadFile(filepath.Join("..", "..", "results", "baselines", "regress.json"))
	if err != nil {
		t.Fatal(err)
	}
	put := func(name, content string) string {
		path := filepath.Join(in, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	valid := put("good.json", string(good))
	put("twin.json", string(good))
	put("hold2ms.json", strings.Replace(string(good), `"hold": "1ms"`, `"hold": "2ms"`, 1))
	put("clients16.json", strings.ReplaceAll(string(good), `"clients": 8`, `"clients": 16`))
	if err := os.Mkdir(filepath.Join(in, "dir.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(in, "dir.yaml"), 0o755); err != nil {
		t.Fatal(err)
	}

	// Bad records, each given to compare, merge and report after a good one.
	badRecords := []struct {
		file, content string
		want          []string
	}{
		{"truncated.json", string(good[:len(good)/2]), []string{"not a lockbench record", "unexpected EOF"}},
		{"schema1.json", strings.Replace(string(good), `"schema": 2`, `"schema": 1`, 1), []string{"schema 1", "reads schema 2"}},
		{"schema99.json", strings.Replace(string(good), `"schema": 2`, `"schema": 99`, 1), []string{"schema 99", "reads schema 2"}},
		{"empty.json", "", []string{"not a lockbench record", "empty"}},
		{"notjson.json", "lockbench was here\n", []string{"not a lockbench record", "invalid character"}},
		{"other-tool.json", `{"tool": "other"}`, []string{"not a lockbench record", `tool "other"`}},
		{"array.json", `[1, 2, 3]`, []string{"not a lockbench record", "array"}},
		{"unknown-field.json", `{"schema": 2, "tool": "lockbench", "colour": "red"}`, []string{"not a lockbench record", `"colour"`}},
		{"dir.json", "", []string{"is a directory"}},
		{"missing.json", "", []string{"no such file"}},
	}

	type badCase struct {
		name string
		args []string // @ in an argument stands for the case's output directory
		want []string // all must appear in the one line on stderr
	}
	var cases []badCase
	for _, r := range badRecords {
		if r.file != "dir.json" && r.file != "missing.json" {
			put(r.file, r.content)
		}
		path := filepath.Join(in, r.file)
		want := append([]string{r.file}, r.want...)
		cases = append(cases,
			badCase{"compare new " + r.file, []string{"compare", valid, path}, want},
			badCase{"compare old " + r.file, []string{"compare", path, valid}, want},
			badCase{"merge " + r.file, []string{"merge", valid, path, "-o", "@/merged.json"}, want},
			badCase{"report " + r.file, []string{"report", valid, path, "-o", "@/page.html"}, want})
	}

	scenario := func(name, content string) string { return put(name, content) }
	faultFile := scenario("bad-fault.yaml", "name: f\nfaults: [\"at=1s explode node=master\"]\n")
	runOut := []string{"--out", "@/run.json", "--report", "@/run.html"}
	cases = append(cases, []badCase{
		// Records: the wrong number, or records that do not fit together.
		{"compare one record", []string{"compare", valid}, []string{"give two records", "got 1"}},
		{"compare no common cell", []string{"compare", valid, filepath.Join(in, "clients16.json")}, []string{"no cell of", "good.json", "clients16.json"}},
		{"merge one record", []string{"merge", valid, "-o", "@/merged.json"}, []string{"merge", "at least two records"}},
		{"merge other configuration", []string{"merge", valid, filepath.Join(in, "hold2ms.json"), "-o", "@/merged.json"}, []string{"another configuration", "good.json", "hold2ms.json"}},
		{"merge into a directory", []string{"merge", valid, filepath.Join(in, "twin.json"), "-o", filepath.Join(in, "dir.json")}, []string{"--out", "dir.json", "is a directory"}},
		{"merge without -o", []string{"merge", valid, filepath.Join(in, "twin.json")}, []string{"--out", "-o merged.json"}},
		{"merge bad format", []string{"merge", valid, filepath.Join(in, "twin.json"), "-o", "@/merged.json", "--format", "xml"}, []string{"--format", `"xml"`}},
		{"merge witness scheme", []string{"merge", "--witness", "http://127.0.0.1:1", "--run-id", "r1", "-o", "@/merged.json"}, []string{"--witness", "redis://"}},
		{"merge witness secret", []string{"merge", "--witness", "redis://u:hunter2@127.0.0.1:port", "--run-id", "r1", "-o", "@/merged.json"}, []string{"--witness", "not a URL"}},
		{"report without -o", []string{"report", valid}, []string{"--out", "-o report.html"}},
		{"report into a directory", []string{"report", valid, "-o", filepath.Join(in, "dir.json")}, []string{"--out", "dir.json", "is a directory"}},
		{"report unknown flag", []string{"report", valid, "-o", "@/page.html", "--colour"}, []string{"--colour"}},

		// Scenario files.
		{"scenario not YAML", []string{"run", "--scenario", scenario("notyaml.yaml", "{{{ lockbench\n")}, []string{"--scenario", "notyaml.yaml", "yaml"}},
		{"scenario unknown field", []string{"run", "--scenario", scenario("field.yaml", "name: x\ncolour: red\n")}, []string{"--scenario", "field.yaml", "colour", "not found"}},
		{"scenario wrong type", []string{"run", "--scenario", scenario("type.yaml", "name: x\nclients: many\n")}, []string{"--scenario", "type.yaml", "cannot unmarshal", "many"}},
		{"scenario no name", []string{"run", "--scenario", scenario("noname.yaml", "duration: 1s\n")}, []string{"--scenario", "noname.yaml", "no name"}},
		{"scenario empty", []string{"run", "--scenario", scenario("empty.yaml", "")}, []string{"--scenario", "empty.yaml", "is empty"}},
		{"scenario missing", []string{"run", "--scenario", filepath.Join(in, "absent.yml")}, []string{"--scenario", "absent.yml", "no such file"}},
		{"scenario directory", []string{"run", "--scenario", filepath.Join(in, "dir.yaml")}, []string{"--scenario", "dir.yaml", "is a directory"}},
		{"scenario unknown name", []string{"run", "--scenario", "no-such-scenario"}, []string{"--scenario", `"no-such-scenario"`, "known:", "file.yaml"}},
		{"scenario bad duration", []string{"run", "--scenario", scenario("duration.yaml", "name: d\nduration: ten\n")}, []string{"duration.yaml", "--duration", `"ten"`}},
		{"scenario bad fault", []string{"run", "--scenario", faultFile}, []string{"bad-fault.yaml", "--fault", "explode"}},
		{"sweep scenario not YAML", []string{"sweep", "--scenario", filepath.Join(in, "notyaml.yaml")}, []string{"--scenario", "notyaml.yaml"}},
		{"findings unknown scenario", []string{"findings", "--scenarios", "no-such-scenario", "--out", "@/findings.md"}, []string{"--scenarios", `"no-such-scenario"`, "known:"}},
		{"findings missing scenario file", []string{"findings", "--scenarios", filepath.Join(in, "absent.yaml"), "--out", "@/findings.md"}, []string{"--scenarios", "absent.yaml", "no such file"}},
		{"bugs unknown entry", []string{"bugs", "run", "no-such-bug"}, []string{`"no-such-bug"`, "known:", "redis-py-4279"}},
		{"bugs no runs", []string{"bugs", "run", "--repeat", "0"}, []string{"--repeat", "at least 1"}},
		{"bugs report unwritable", []string{"bugs", "run", "--out", in}, []string{"--out", "is a directory"}},
		{"bugs records not a directory", []string{"bugs", "run", "--records", filepath.Join(valid, "x")}, []string{"--records", "not a directory lockbench can write"}},
		{"findings not a driver", []string{"findings", "--variants", "redlock", "--out", "@/findings.md"}, []string{"--variants", `"redlock"`, "drv:NAME"}},

		// Fault specs.
		{"fault bad time", []string{"run", "--fault", "at=soon kill node=master"}, []string{"--fault", `at="soon"`, "not a duration"}},
		{"fault negative time", []string{"run", "--fault", "at=-1s kill node=master"}, []string{"--fault", `at="-1s"`}},
		{"fault negative for", []string{"run", "--fault", "at=1s pause node=master for=-2s"}, []string{"--fault", `for="-2s"`}},
		{"fault without at", []string{"run", "--fault", "kill node=master"}, []string{"--fault", "no at="}},
		{"fault without kind", []string{"run", "--fault", "at=1s node=master"}, []string{"--fault", "no kind"}},
		{"fault two kinds", []string{"run", "--fault", "at=1s kill pause node=master"}, []string{"--fault", "two kinds"}},
		{"fault unknown field", []string{"run", "--fault", "at=1s kill node=master when=now"}, []string{"--fault", `"when"`, "fields:"}},
		{"fault field twice", []string{"run", "--fault", "at=1s at=2s kill node=master"}, []string{"--fault", "at= given twice"}},
		{"fault bad fraction", []string{"run", "--fault", "at=1s kill node=master fraction=2"}, []string{"--fault", `fraction="2"`}},
		{"sweep fault bad time", []string{"sweep", "--fault", "at=soon kill node=master"}, []string{"--fault", `at="soon"`}},
		{"partition unknown node", []string{"run", "--topology", "local:sentinel", "--fault", "at=1s partition sides=master|replica-9"},
			[]string{"--fault", `"replica-9"`, "no such node or group", "nodes: master, replica-1"}},
		{"partition unknown group", []string{"run", "--topology", "local:sentinel", "--client-groups", "a,b", "--fault", "at=1s partition sides=master,clients-a|clients-c"},
			[]string{"--fault", `"clients-c"`, "no such node or group", "clients-a, clients-b"}},
		{"partition no sentinels", []string{"run", "--topology", "local:replicated", "--fault", "at=1s partition sides=master|sentinels"},
			[]string{"--fault", `"sentinels"`, "no such node or group"}},
		{"partition sides overlap", []string{"run", "--topology", "local:sentinel", "--fault", "at=1s partition sides=master,replicas|replicas"},
			[]string{"--fault", "replicas twice", "overlap"}},
		{"partition sides overlap by role", []string{"run", "--topology", "local:sentinel", "--fault", "at=1s partition sides=masters|master,replicas"},
			[]string{"--fault", "master is on both sides", "overlap"}},
		{"partition one side", []string{"run", "--topology", "local:sentinel", "--fault", "at=1s partition sides=master"},
			[]string{"--fault", "two sides split by |"}},
		{"partition between client groups", []string{"run", "--client-groups", "a,b", "--fault", "at=1s partition sides=clients-a|clients-b"},
			[]string{"--fault", "no link joins the sides"}},
		{"partition on a server lockbench did not start", []string{"run", "--target", "redis://127.0.0.1:1", "--fault", "at=1s partition node=master-1"},
			[]string{"--fault", "topology lockbench starts", "target is not one"}},
		{"reset on a server lockbench did not start", []string{"run", "--target", "redis://127.0.0.1:1", "--fault", "at=1s reset node=master"},
			[]string{"--fault", "topology lockbench starts", "target is not one"}},
		{"reset with count=", []string{"run", "--fault", "at=1s reset node=master count=2"},
			[]string{"--fault", "count= goes with step faults"}},
		{"latency between sides of a cluster lockbench did not start", []string{"run", "--cluster", "127.0.0.1:1", "--fault", "at=1s latency sides=masters|replicas latency=5ms"},
			[]string{"--fault", "topology lockbench starts", "only latency node="}},
		{"client groups bad name", []string{"run", "--client-groups", "a,B"}, []string{"--client-groups", "a,B", "example: a,b"}},
		{"client groups twice", []string{"run", "--client-groups", "a,a"}, []string{"--client-groups", "each name once"}},
		{"client groups more than clients", []string{"run", "--client-groups", "a,b,c", "--clients", "2"}, []string{"--client-groups", "3 client groups need at least 3 clients"}},

		// Servers.
		{"server no such binary", []string{"run", "--server", "/no/such/binary"}, []string{"--server", "/no/such/binary", "no such server binary", "install"}},
		// Binaries that are no server: refused from their --version, before any node starts.
		{"server not a server", []string{"run", "--server", "/bin/true", "--duration", "1s"}, []string{"--server", "/bin/true is not a Redis or Valkey server", `answered "true (GNU coreutils)`}},
		{"server that writes without end", []string{"run", "--server", "/usr/bin/yes", "--duration", "1s"}, []string{"--server", "/usr/bin/yes is not a Redis or Valkey server", `answered "yes (GNU coreutils)`}},
		{"servers unknown name", []string{"run", "--servers", "redis,keydb-server-9"}, []string{"--servers", "keydb-server-9", "install"}},
		{"servers twice", []string{"run", "--servers", "redis,redis"}, []string{"--servers", "redis given twice"}},
		{"server on a target", []string{"run", "--server", "redis", "--target", "redis://127.0.0.1:1"}, []string{"--server", "target is not one"}},
		{"sweep servers", []string{"sweep", "--servers", "redis,valkey"}, []string{"--servers", "not for sweep", "--server"}},
		{"sweep server no such binary", []string{"sweep", "--server", "/no/such/binary"}, []string{"--server", "/no/such/binary"}},
		{"findings servers no such binary", []string{"findings", "--servers", "redis,/no/such/binary", "--out", "@/findings.md"}, []string{"--servers", "/no/such/binary"}},

		// URLs.
		{"target unknown scheme", []string{"run", "--target", "memcached://127.0.0.1:11211"}, []string{"--target", "redis://"}},
		{"target port out of range", []string{"run", "--target", "redis://127.0.0.1:99999"}, []string{"--target", "bad port"}},
		{"target empty host", []string{"run", "--target", "redis://:6379"}, []string{"--target", "host:port"}},
		{"target no host at all", []string{"run", "--target", "redis://"}, []string{"--target", "host:port"}},
		{"target not a URL", []string{"run", "--target", "redis://[::1"}, []string{"--target", "not a URL"}},
		{"target bad database", []string{"run", "--target", "redis://127.0.0.1:6379/x"}, []string{"--target", "database"}},
		{"target query", []string{"run", "--target", "redis://127.0.0.1:6379?db=1"}, []string{"--target", "query"}},
		{"target password", []string{"run", "--target", "redis://u:hunter2@127.0.0.1:6379"}, []string{"--target", "password"}},
		{"target password bad port", []string{"run", "--target", "redis://u:hunter2@127.0.0.1:99999"}, []string{"--target", "bad port"}},
		{"target password not a URL", []string{"run", "--target", "redis://u:hunter2@[::1"}, []string{"--target"}},
		{"sweep target scheme", []string{"sweep", "--target", "http://127.0.0.1:6379"}, []string{"--target", "redis://"}},
		{"witness password", []string{"run", "--witness", "redis://u:hunter2@127.0.0.1:6379"}, []string{"--witness", "password"}},

		// Table columns.
		{"columns unknown", []string{"run", "--columns", "variant,throughput"}, []string{"--columns", `"throughput"`, "known:", "acq/s", "verdict"}},
		{"sweep columns unknown", []string{"sweep", "--columns", "p42"}, []string{"--columns", `"p42"`, "known:"}},

		// Other subcommands.
		{"topology up unknown", []string{"topology", "up", "local:mesh", "--state", "@/state.json"}, []string{"topology up", "local:mesh"}},
		{"topology up two names", []string{"topology", "up", "local:single", "local:cluster", "--state", "@/state.json"}, []string{"topology up", "1 argument"}},
		{"topology bad action", []string{"topology", "sideways", "--state", "@/state.json"}, []string{"topology", `"sideways"`, "topology up"}},
		{"topology down stray argument", []string{"topology", "down", "now", "--state", "@/state.json"}, []string{`"now"`}},
		{"calibrate bad flag", []string{"calibrate", "--colour", "red"}, []string{"--colour"}},
		{"calibrate driver unknown", []string{"calibrate", "--driver", "nosuch"}, []string{`"nosuch"`, "unknown driver"}},
		{"calibrate driver without a bare loop", []string{"calibrate", "--driver", "python-redis-lock-renew", "--drivers", "../../drivers"}, []string{"--driver", "python-redis-lock-renew", "no bare loop", "node-redlock"}},
		{"calibrate driver with connections", []string{"calibrate", "--driver", "node-redlock", "--connections", "5"}, []string{"--connections", "without --driver"}},
		{"calibrate clients without driver", []string{"calibrate", "--clients", "4"}, []string{"--clients", "--driver"}},
		{"calibrate driver no clients", []string{"calibrate", "--driver", "node-redlock", "--drivers", "../../drivers", "--clients", "0"}, []string{"--clients", "at least 1"}},
		{"scenarios stray argument", []string{"scenarios", "extra"}, []string{`"extra"`}},
		{"variants stray argument", []string{"variants", "extra"}, []string{`"extra"`}},
		{"help unknown command", []string{"help", "bench"}, []string{`"bench"`}},
	}...)

	inputs := listDir(t, in)
	names := map[string]bool{}
	for _, tc := range cases {
		if names[tc.name] {
			t.Fatalf("case %q given twice", tc.name)
		}
		names[tc.name] = true
		t.Run(tc.name, func(t *testing.T) {
			outDir := t.TempDir()
			args := slices.Clone(tc.args)
			if args[0] == "run" || args[0] == "sweep" {
				args = append(args, runOut...)
			}
			for i, a := range args {
				if strings.HasPrefix(a, "@/") {
					args[i] = filepath.Join(outDir, a[2:])
				}
			}
			stdout, stderr, status := runCLI(t, args...)
			if status != exitUsage {
				t.Errorf("exit status %d, want %d (stderr %q)", status, exitUsage, stderr)
			}
			line := strings.TrimSpace(stderr)
			if strings.Contains(line, "\n") {
				t.Errorf("stderr has more than one line: %q", stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(line, w) {
					t.Errorf("stderr %q does not mention %q", line, w)
				}
			}
			if strings.Contains(stderr, "hunter2") {
				t.Errorf("stderr echoes the password: %q", stderr)
			}
			if stdout != "" {
				t.Errorf("stdout not empty: %q", stdout)
			}
			if left := listDir(t, outDir); len(left) > 0 {
				t.Errorf("bad input left files behind: %v", left)
			}
			if now := listDir(t, in); !slices.Equal(now, inputs) {
				t.Errorf("the input directory changed: %v, was %v", now, inputs)
			}
		})
	}
}

// listDir lists the names in dir, hidden ones too.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

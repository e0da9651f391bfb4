package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/olekukonko/tablewriter/pkg/twwidth"

	"github.com/lockbench/lockbench/variants"
)

// lockbench variants fits 100 columns (a wide character counts two): the
// list names every variant with its kind and claims, variants NAME gives
// one in full (its source and how it works whole), --wide keeps the whole
// table. Before issue 40 the list was the 211-column table.
func TestVariantsFit(t *testing.T) {
	fits := func(what, out string) {
		t.Helper()
		for _, line := range strings.Split(out, "\n") {
			if w := twwidth.Width(line); w > 100 {
				t.Errorf("%s: %d columns: %q", what, w, line)
			}
		}
	}
	words := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	list, stderr, status := runCLI(t, "variants")
	if status != exitOK {
		t.Fatalf("variants: status %d: %s", status, stderr)
	}
	fits("variants", list)
	lines := strings.Split(list, "\n")
	for _, v := range variants.All() {
		t.Run(v.Name, func(t *testing.T) {
			i := slices.IndexFunc(lines, func(line string) bool { return strings.HasPrefix(line, v.Name+" ") })
			if i < 0 {
				t.Errorf("variants does not list %s:\n%s", v.Name, list)
			} else if !strings.Contains(lines[i], string(v.Kind)+"; claims "+v.Claims.String()) {
				t.Errorf("variants: %s's line %q does not say its kind and claims", v.Name, lines[i])
			}
			one, stderr, status := runCLI(t, "variants", v.Name)
			if status != exitOK {
				t.Fatalf("variants %s: status %d: %s", v.Name, status, stderr)
			}
			fits("variants "+v.Name, one)
			for _, text := range []string{v.Source, v.Summary, v.Claims.String(), v.WhereText(), v.RetryText()} {
				if !strings.Contains(words(one), words(text)) {
					t.Errorf("variants %s does not say %q:\n%s", v.Name, text, one)
				}
			}
			for _, s := range v.Steps {
				if !strings.Contains(words(one), words(s.Name+": "+s.When)) {
					t.Errorf("variants %s does not say its step %s:\n%s", v.Name, s.Name, one)
				}
			}
		})
	}
	if wide, _, _ := runCLI(t, "variants", "--wide"); !strings.Contains(wide, "how it works") || !strings.Contains(wide, "+----") {
		t.Errorf("variants --wide is not the table:\n%s", wide)
	}
}

// The list says where a variant runs only when that is not single and
// cluster topologies with any client; variants NAME always says it.
func TestVariantsRunsOn(t *testing.T) {
	for _, tc := range []struct {
		info        variants.Info
		list, whole string
	}{
		{variants.Info{}, "", "single,cluster"},
		{variants.Info{Shapes: []variants.Shape{variants.ShapeSingle, variants.ShapeCluster, variants.ShapeIndependent}},
			"also on independent masters", "single,cluster,independent"},
		{variants.Info{Clients: []string{"go-redis"}}, "go-redis only", "single,cluster; go-redis only"},
		{variants.Info{Shapes: []variants.Shape{variants.ShapeSingle}, Clients: []string{"rueidis"}},
			"runs on single; rueidis only", "single; rueidis only"},
	} {
		if got := tc.info.UnusualRunsOn(); got != tc.list {
			t.Errorf("%+v: listed as %q, want %q", tc.info, got, tc.list)
		}
		if got := tc.info.WhereText(); got != tc.whole {
			t.Errorf("%+v: runs on %q, want %q", tc.info, got, tc.whole)
		}
	}
}

// --format json gives every variant, or with NAME the one it names.
func TestVariantsJSON(t *testing.T) {
	out, stderr, status := runCLI(t, "variants", "--format", "json")
	var all []variants.Info
	if err := json.Unmarshal([]byte(out), &all); status != exitOK || err != nil || len(all) != len(variants.Names()) {
		t.Fatalf("variants --format json: status %d, %v, %d variants (stderr %q)", status, err, len(all), stderr)
	}
	out, stderr, status = runCLI(t, "variants", "--format", "json", "lua-release")
	var one variants.Info
	if err := json.Unmarshal([]byte(out), &one); status != exitOK || err != nil || one.Name != "lua-release" || one.Source == "" {
		t.Errorf("variants --format json lua-release: status %d, %v, %+v (stderr %q)", status, err, one, stderr)
	}
}

// An unknown NAME, or two, is bad input in one line: exit 2, nothing on
// stdout, the name given and the names known.
func TestVariantsBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"variants", "luarelease"}, []string{`"luarelease"`, "known:", "lua-release", "watchdog"}},
		{[]string{"variants", "lua-release", "watchdog"}, []string{"one variant NAME at most", "lua-release watchdog"}},
		{[]string{"variants", "--format", "yaml", "lua-release"}, []string{"--format", `"yaml"`, "table, json"}},
		{[]string{"variants", "--format", "json", "luarelease"}, []string{`"luarelease"`, "known:"}},
	} {
		stdout, stderr, status := runCLI(t, tc.args...)
		line := strings.TrimSpace(stderr)
		if status != exitUsage || stdout != "" || strings.Contains(line, "\n") {
			t.Errorf("%s: status %d, want %d; stdout %q; stderr %q", strings.Join(tc.args, " "), status, exitUsage, stdout, stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(line, w) {
				t.Errorf("%s: stderr %q does not mention %q", strings.Join(tc.args, " "), line, w)
			}
		}
	}
}

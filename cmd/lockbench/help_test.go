package main

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/spf13/pflag"
)

// TestHelp asks lockbench and every command of its command table, groups
// and their actions too, for help each way there is: --help, -h and
// lockbench help NAME. Each must succeed, write only to stdout, fit
// helpWidth columns, say how it is called, and end with examples; the
// three ways must agree.
func TestHelp(t *testing.T) {
	asks := [][]string{{"--help"}, {"-h"}, {"help"}, {"help", "--help"}}
	var walk func(cmds []command)
	walk = func(cmds []command) {
		for _, c := range cmds {
			name := strings.Fields(c.name)
			asks = append(asks, append(slices.Clone(name), "--help"), append(slices.Clone(name), "-h"),
				append([]string{"help"}, name...))
			walk(c.actions)
		}
	}
	walk(commands)
	if len(asks) < 4+3*len(commands) {
		t.Fatalf("%d ways to ask for help, want at least %d", len(asks), 4+3*len(commands))
	}

	byWay := map[string]string{} // the help of a command asked with --help
	for _, args := range asks {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if err := run(context.Background(), args, &stdout, &stderr); err != nil {
				t.Fatalf("lockbench %s: %v, want success", strings.Join(args, " "), err)
			}
			if stderr.Len() > 0 {
				t.Errorf("stderr not empty: %q", stderr.String())
			}
			out := stdout.String()
			checkHelp(t, out)

			name := strings.Join(slices.DeleteFunc(slices.Clone(args), isHelpArg), " ")
			if name != "" && !strings.Contains(out, "\n  lockbench "+name) {
				t.Errorf("no usage line of lockbench %s:\n%s", name, out)
			}
			if first, ok := byWay[name]; !ok {
				byWay[name] = out
			} else if out != first {
				t.Errorf("lockbench %s differs from the help asked the first way:\n%s\nthen:\n%s", strings.Join(args, " "), first, out)
			}
		})
	}
}

// checkHelp checks one help text: lines of at most helpWidth runes, a
// usage line, and a last section of examples.
func checkHelp(t *testing.T, out string) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for i, line := range lines {
		if n := utf8.RuneCountInString(line); n > helpWidth {
			t.Errorf("line %d has %d columns, more than %d: %q", i+1, n, helpWidth, line)
		}
	}
	if !strings.Contains(out, "Usage:\n  lockbench ") {
		t.Errorf("no usage line:\n%s", out)
	}
	at := slices.Index(lines, "Examples:")
	if at < 0 || !strings.Contains(out, "Example") {
		t.Fatalf("no examples:\n%s", out)
	}
	commandLines := 0
	for _, line := range lines[at+1:] {
		switch {
		case line != "" && !strings.HasPrefix(line, "  "):
			t.Errorf("the help does not end with its examples: %q after them", line)
		case strings.HasPrefix(line, "  lockbench ") || strings.HasPrefix(line, "  for "):
			commandLines++
		}
	}
	if commandLines < 2 {
		t.Errorf("%d example commands, want at least 2:\n%s", commandLines, out)
	}
}

// TestHelpCommands checks the command table itself: each command gives
// two to four examples of lockbench; each leaf answers --help with its
// flags, every one of which its help lists; lockbench --help gives each
// command one line.
func TestHelpCommands(t *testing.T) {
	var root bytes.Buffer
	writeRootHelp(&root)
	rootLines := strings.Split(root.String(), "\n")
	var leaves []*command
	for i := range commands {
		c := &commands[i]
		if len(c.actions) == 0 {
			leaves = append(leaves, c)
		}
		for j := range c.actions {
			leaves = append(leaves, &c.actions[j])
		}
	}
	for _, c := range leaves {
		t.Run(c.name, func(t *testing.T) {
			if n := len(c.examples); n < 2 || n > 4 {
				t.Errorf("%d examples, want 2 to 4", n)
			}
			for _, e := range c.examples {
				if len(e.lines) == 0 || !strings.Contains(e.lines[0], "lockbench ") {
					t.Errorf("example %q does not run lockbench: %q", e.comment, e.lines)
				}
			}
			if c.summary == "" || c.about == "" {
				t.Errorf("no summary or no description")
			}
			if !slices.ContainsFunc(rootLines, func(line string) bool {
				return strings.HasPrefix(line, "  "+c.name+" ") && strings.HasSuffix(line, " "+c.summary)
			}) {
				t.Errorf("lockbench --help has no line of its own for %s: %q", c.name, c.summary)
			}

			err := c.run(context.Background(), []string{"--help"}, &bytes.Buffer{}, &bytes.Buffer{})
			h, ok := errors.AsType[helpRequest](err)
			if !ok {
				t.Fatalf("%s --help returned %v, want a help request", c.name, err)
			}
			var out bytes.Buffer
			if err := writeHelp(&out, c, h.flags); err != nil {
				t.Fatal(err)
			}
			h.flags.VisitAll(func(f *pflag.Flag) {
				listed := regexp.MustCompile(`(?m)^ +(-., )?--` + regexp.QuoteMeta(f.Name) + `[ \[]`)
				if !f.Hidden && !listed.MatchString(out.String()) {
					t.Errorf("the help does not list --%s:\n%s", f.Name, out.String())
				}
			})
		})
	}
}

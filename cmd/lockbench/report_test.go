package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lockbench/lockbench/results"
	"github.com/lockbench/lockbench/topologies/topotest"
)

func TestReportBadInput(t *testing.T) {
	dir := t.TempDir()
	corrupt := filepath.Join(dir, "corrupt.json")
	if err := os.WriteFile(corrupt, []byte(`{"schema": 2, "tool": "lockbench", "cells": [`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "never.html")
	for _, tc := range []struct {
		name string
		args []string
		want []string // all must appear in the one line on stderr
	}{
		{"no records", []string{"report", "-o", out}, []string{"at least one record", "-o report.html"}},
		{"directory", []string{"report", dir, "-o", out}, []string{dir, "is a directory", "*.json"}},
		{"corrupt record", []string{"report", corrupt, "-o", out}, []string{"corrupt.json", "not a lockbench record"}},
		{"missing record", []string{"report", filepath.Join(dir, "absent.json"), "-o", out}, []string{"absent.json", "no such file"}},
		{"missing -o", []string{"report", corrupt}, []string{"--out", "-o report.html"}},
		{"unknown flag", []string{"report", "--format", "pdf", corrupt, "-o", out}, []string{"unknown flag", "--format"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, status := runCLI(t, tc.args...)
			if status != exitUsage {
				t.Errorf("status %d, want %d; stderr: %s", status, exitUsage, stderr)
			}
			if lines := strings.Count(strings.TrimSpace(stderr), "\n") + 1; lines != 1 {
				t.Errorf("stderr has %d lines, want 1:\n%s", lines, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q: %s", w, stderr)
				}
			}
		})
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed report left %s behind (%v)", out, err)
	}
}

// chromium returns the path of a headless Chromium, failing the test with
// how to install one when there is none.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	t.Fatal("chromium is not installed: the end-to-end test of lockbench report opens the report in headless Chromium. " +
		"Install it (Debian: apt-get install -y chromium; make test does it as root via scripts/ensure-chromium.sh)")
	return ""
}

// consoleLine matches what Chromium logs, with --enable-logging=stderr,
// for a console message or an uncaught exception of the page.
var consoleLine = regexp.MustCompile(`(?m)^.*(:CONSOLE[(:]|Uncaught ).*$`)

// openInChromium loads file in headless Chromium and returns the DOM it
// built and the page's console messages. With screenshot it also saves a
// screenshot there.
func openInChromium(t *testing.T, browser, file, screenshot string) (dom string, console []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
		"--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0", "--window-size=1280,4000"}
	if screenshot != "" {
		args = append(args, "--screenshot="+screenshot)
	} else {
		args = append(args, "--dump-dom")
	}
	cmd := exec.CommandContext(ctx, browser, append(args, "file://"+file)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", file, err, stderr.String())
	}
	return stdout.String(), consoleLine.FindAllString(stderr.String(), -1)
}

// The end to end test: a short real run with --report, lockbench report of
// its record, and the page opened in headless Chromium, which must build
// the charts without a console error.
func TestReportEndToEnd(t *testing.T) {
	browser := chromium(t)
	ep := topotest.Endpoint(t)
	dir := t.TempDir()
	record, fromRun, page := filepath.Join(dir, "run.json"), filepath.Join(dir, "run.html"), filepath.Join(dir, "report.html")

	// The console check must be able to fail: a page with an error.
	broken := filepath.Join(dir, "broken.html")
	if err := os.WriteFile(broken, []byte(`<html><body><script>console.error("boom"); missing();</script></body></html>`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, console := openInChromium(t, browser, broken, ""); len(console) < 2 {
		t.Fatalf("Chromium's console log is not captured (got %q): the check below would pass vacuously", console)
	}

	_, stderr, status := runCLI(t, "run", "--target", "redis://"+ep.Addr, "--variants", "lua-release,set-nx-ex",
		"--clients", "4", "--duration", "1s", "--warmup", "0", "--out", record, "--report", fromRun)
	if status != exitOK {
		t.Fatalf("run: status %d: %s", status, stderr)
	}
	if !strings.Contains(stderr, "report written to "+fromRun) {
		t.Errorf("run --report did not say where it wrote the report: %s", stderr)
	}
	rec, err := results.Load(record)
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, status := runCLI(t, "report", record, record, "-o", page)
	if status != exitOK {
		t.Fatalf("report: status %d: %s", status, stderr)
	}
	if !strings.Contains(stdout, "2 record(s) written to "+page) {
		t.Errorf("report output: %s", stdout)
	}
	for _, file := range []string{fromRun, page} {
		dom, console := openInChromium(t, browser, file, "")
		if len(console) > 0 {
			t.Errorf("%s: console messages in Chromium:\n%s", filepath.Base(file), strings.Join(console, "\n"))
		}
		sections := 1
		if file == page {
			sections = 2
		}
		// Per record: the spectrum, three time charts, one fairness chart per cell.
		if n, want := strings.Count(dom, "<svg"), sections*(4+len(rec.Cells)); n != want {
			t.Errorf("%s: %d svg elements in the DOM, want %d", filepath.Base(file), n, want)
		}
		for _, s := range []string{"Run " + rec.RunID, "lua-release ×4", "set-nx-ex ×4", "acquire latency by percentile", "<table>"} {
			if !strings.Contains(dom, s) {
				t.Errorf("%s: DOM lacks %q", filepath.Base(file), s)
			}
		}
	}
	png := filepath.Join(dir, "report.png")
	openInChromium(t, browser, page, png)
	if data, err := os.ReadFile(png); err != nil || !bytes.HasPrefix(data, []byte("\x89PNG")) || len(data) < 20_000 {
		t.Errorf("screenshot: %v, %d bytes", err, len(data))
	}
}

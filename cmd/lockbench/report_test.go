package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	htmlpkg "html"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lockbench/lockbench/record"
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

// pageWindow is the window size the report's pages are opened in.
const pageWindow = "1280,4000"

// openInChromium loads file in headless Chromium and returns the DOM it
// built and the page's console messages. With screenshot it also saves a
// screenshot there.
func openInChromium(t *testing.T, browser, file, screenshot string) (dom string, console []string) {
	t.Helper()
	return openInWindow(t, browser, file, screenshot, pageWindow)
}

// openInWindow is openInChromium in a window of size (width,height).
func openInWindow(t *testing.T, browser, file, screenshot, size string) (dom string, console []string) {
	t.Helper()
	dom, console, err := chromiumOpen(browser, file, screenshot, size, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dom, console
}

// chromiumPage is a file to open in Chromium, and where to save its
// screenshot ("": none, the DOM is dumped).
type chromiumPage struct{ file, screenshot string }

// openAllInChromium is openInChromium of each page, all at once: Chromium
// takes about a second to start. It returns their DOMs and console
// messages in the order of pages.
func openAllInChromium(t *testing.T, browser string, pages ...chromiumPage) (doms []string, consoles [][]string) {
	t.Helper()
	doms, consoles = make([]string, len(pages)), make([][]string, len(pages))
	errs := make([]error, len(pages))
	var wg sync.WaitGroup
	for i, p := range pages {
		userDir := t.TempDir()
		wg.Go(func() {
			doms[i], consoles[i], errs[i] = chromiumOpen(browser, p.file, p.screenshot, pageWindow, userDir)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	return doms, consoles
}

// chromiumOpen is openInWindow's work, with Chromium's user data in
// userDir, without the test: it may run in a goroutine of its own.
func chromiumOpen(browser, file, screenshot, size, userDir string) (dom string, console []string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
		"--user-data-dir=" + userDir, "--enable-logging=stderr", "--v=0", "--window-size=" + size}
	if screenshot != "" {
		args = append(args, "--screenshot="+screenshot)
	} else {
		args = append(args, "--dump-dom")
	}
	cmd := exec.CommandContext(ctx, browser, append(args, "file://"+file)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", nil, fmt.Errorf("chromium %s: %w\n%s", file, err, stderr.String())
	}
	return stdout.String(), consoleLine.FindAllString(stderr.String(), -1), nil
}

// The end to end test: a short real run with --report, lockbench report of
// its record, and the page opened in headless Chromium, which must build
// the charts without a console error.
func TestReportEndToEnd(t *testing.T) {
	t.Parallel() // what the page shows is checked, not how fast: on a server of its own beside the other parallel tests.
	browser := chromium(t)
	ep := topotest.Endpoint(t)
	dir := t.TempDir()
	recordPath, fromRun, page := filepath.Join(dir, "run.json"), filepath.Join(dir, "run.html"), filepath.Join(dir, "report.html")

	// The console check must be able to fail: a page with an error.
	broken := filepath.Join(dir, "broken.html")
	if err := os.WriteFile(broken, []byte(`<html><body><script>console.error("boom"); missing();</script></body></html>`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, console := openInChromium(t, browser, broken, ""); len(console) < 2 {
		t.Fatalf("Chromium's console log is not captured (got %q): the check below would pass vacuously", console)
	}

	_, stderr, status := runCLI(t, "run", "--target", "redis://"+ep.Addr, "--variants", "lua-release,set-nx-ex",
		"--clients", "4", "--duration", "1s", "--warmup", "0", "--out", recordPath, "--report", fromRun)
	if status != exitOK {
		t.Fatalf("run: status %d: %s", status, stderr)
	}
	if !strings.Contains(stderr, "report written to "+fromRun) {
		t.Errorf("run --report did not say where it wrote the report: %s", stderr)
	}
	rec, err := record.Load(recordPath)
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, status := runCLI(t, "report", recordPath, recordPath, "-o", page)
	if status != exitOK {
		t.Fatalf("report: status %d: %s", status, stderr)
	}
	if !strings.Contains(stdout, "2 record(s) written to "+page) {
		t.Errorf("report output: %s", stdout)
	}
	png := filepath.Join(dir, "report.png")
	doms, consoles := openAllInChromium(t, browser, chromiumPage{fromRun, ""}, chromiumPage{page, ""}, chromiumPage{page, png})
	for i, file := range []string{fromRun, page} {
		dom, console := doms[i], consoles[i]
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
	if data, err := os.ReadFile(png); err != nil || !bytes.HasPrefix(data, []byte("\x89PNG")) || len(data) < 20_000 {
		t.Errorf("screenshot: %v, %d bytes", err, len(data))
	}
}

// geometryScript, put into a copy of a report, writes into the DOM where
// the browser laid out the first verdict, the summary table's header
// cells and the last header cell of the table of all figures (its
// details opened), as JSON in <pre id="geometry">.
const geometryScript = `<script>
(function () {
  function box(el) { var r = el.getBoundingClientRect(); return {text: el.textContent.trim(), left: r.left, right: r.right, top: r.top}; }
  var out = {innerWidth: window.innerWidth, scrollWidth: document.documentElement.scrollWidth};
  out.verdict = box(document.querySelector(".verdict"));
  out.headers = Array.prototype.map.call(document.querySelectorAll("table.summary th"), box);
  document.querySelectorAll("details.all").forEach(function (d) { d.open = true; });
  var all = document.querySelectorAll("details.all th");
  out.lastOfAll = box(all[all.length - 1]);
  var pre = document.createElement("pre");
  pre.id = "geometry";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>`

// box is where an element lies in the viewport, in CSS pixels.
type box struct {
	Text             string
	Left, Right, Top float64
}

var geometryElement = regexp.MustCompile(`(?s)<pre id="geometry">(.*?)</pre>`)

// The page leads with the verdict: in a 1280×900 window, the verdict
// and the summary table's variant, throughput, p99, violation and verdict
// columns lie inside the viewport without scrolling sideways, while the
// table of all figures is wider (and scrolls in its own box).
func TestReportVerdictFitsViewport(t *testing.T) {
	t.Parallel() // geometry in a page, not timing: on a server of its own beside the other parallel tests.
	browser := chromium(t)
	ep := topotest.Endpoint(t)
	dir := t.TempDir()
	recordPath, page := filepath.Join(dir, "run.json"), filepath.Join(dir, "report.html")
	_, stderr, status := runCLI(t, "run", "--target", "redis://"+ep.Addr, "--variants", "none,set-nx-ex,lua-release,watchdog",
		"--clients", "8", "--duration", "1s", "--warmup", "0", "--out", recordPath)
	if status != exitOK {
		t.Fatalf("run: status %d: %s", status, stderr)
	}
	if _, stderr, status := runCLI(t, "report", recordPath, "-o", page); status != exitOK {
		t.Fatalf("report: status %d: %s", status, stderr)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	probe := filepath.Join(dir, "probe.html")
	if err := os.WriteFile(probe, bytes.Replace(html, []byte("</body>"), []byte(geometryScript+"</body>"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, console := openInWindow(t, browser, probe, "", "1280,900")
	if len(console) > 0 {
		t.Errorf("console messages in Chromium:\n%s", strings.Join(console, "\n"))
	}
	m := geometryElement.FindStringSubmatch(dom)
	if m == nil {
		t.Fatalf("the probe wrote no geometry into the DOM:\n%.2000s", dom)
	}
	var g struct {
		InnerWidth, ScrollWidth float64
		Verdict, LastOfAll      box
		Headers                 []box
	}
	if err := json.Unmarshal([]byte(htmlpkg.UnescapeString(m[1])), &g); err != nil {
		t.Fatalf("geometry %q: %v", m[1], err)
	}
	t.Logf("viewport %.0f px; verdict %+v; last column of all figures at %.0f px", g.InnerWidth, g.Verdict, g.LastOfAll.Right)
	if g.InnerWidth < 1000 || g.InnerWidth > 1280 {
		t.Fatalf("viewport %.0f px wide: the window is not 1280 px", g.InnerWidth)
	}
	inside := func(what string, b box) {
		if b.Left < 0 || b.Right > g.InnerWidth || b.Right <= b.Left {
			t.Errorf("%s lies at %.0f-%.0f px, outside the %.0f px viewport", what, b.Left, b.Right, g.InnerWidth)
		}
	}
	inside("the verdict", g.Verdict)
	if g.Verdict.Top < 0 || g.Verdict.Top > 900 || !strings.Contains(g.Verdict.Text, "kept exclusion") {
		t.Errorf("the verdict %q starts at %.0f px: not on the first screen", g.Verdict.Text, g.Verdict.Top)
	}
	for _, want := range []string{"variant", "acq/s", "p99", "overlaps", "lost upd", "verdict"} {
		i := slices.IndexFunc(g.Headers, func(b box) bool { return b.Text == want })
		if i < 0 {
			t.Errorf("the summary table has no %q column: %+v", want, g.Headers)
			continue
		}
		inside("the summary's "+want+" column", g.Headers[i])
	}
	if g.ScrollWidth > g.InnerWidth {
		t.Errorf("the page is %.0f px wide in a %.0f px viewport: it scrolls sideways", g.ScrollWidth, g.InnerWidth)
	}
	// The check can fail: the table of all figures does not fit.
	if g.LastOfAll.Right <= g.InnerWidth {
		t.Errorf("the last of all figures' columns ends at %.0f px, inside the viewport: the probe measures nothing", g.LastOfAll.Right)
	}
}

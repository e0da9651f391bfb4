package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// events joins go test -json events, one a line: "ACTION PKG [TEST]".
func events(lines ...string) string {
	var b strings.Builder
	for _, l := range lines {
		f := strings.Fields(l)
		b.WriteString(`{"Time":"2026-12-06T10:00:00Z","Action":"` + f[0] + `","Package":"` + f[1] + `"`)
		if len(f) > 2 {
			b.WriteString(`,"Test":"` + f[2] + `"`)
		}
		b.WriteString("}\n")
	}
	return b.String()
}

func TestRun(t *testing.T) {
	tests := []struct {
		name    string
		events  string
		want    string
		outside bool
	}{
		{
			name: "all pass",
			events: events("start p", "run p TestA", "pass p TestA", "pass p",
				"start q", "pass q TestB", "pass q"),
		},
		{
			name: "a test passing on its rerun",
			events: events("fail p TestA", "pass p TestB", "fail p",
				"pass p TestA", "pass p"),
			want: "flaky: p TestA\n",
		},
		{
			name: "a test failing its rerun too",
			events: events("fail p TestA", "fail p",
				"fail p TestA", "fail p"),
		},
		{
			name: "a subtest, named without its parent, beside a sibling named like a child",
			events: events("fail p TestA/x", "fail p TestA/x-y", "fail p TestA", "fail p",
				"pass p TestA/x", "pass p TestA", "pass p",
				"pass p TestA/x-y", "pass p TestA", "pass p"),
			want: "flaky: p TestA/x\nflaky: p TestA/x-y\n",
		},
		{
			name: "the leak check failing after every test passed",
			events: events("pass p TestA", "fail p",
				"pass p"),
			want:    "failed outside any test: p\n",
			outside: true,
		},
		{
			name: "the leak check failing beside a failed test",
			events: events("fail p TestA", "fail p",
				"pass p TestA", "pass p"),
			want: "flaky: p TestA\n",
		},
		{
			name: "packages interleaved",
			events: events("start p", "start q", "fail q TestB", "pass p TestA", "fail q", "fail p",
				"pass q TestB", "pass q"),
			want:    "flaky: q TestB\nfailed outside any test: p\n",
			outside: true,
		},
		{
			name:   "gotestsum's own lines skipped",
			events: "not an event\n\n" + events("fail p TestA", "fail p", "pass p TestA", "pass p"),
			want:   "flaky: p TestA\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := run(nil, strings.NewReader(tt.events), &out)
			if got := out.String(); got != tt.want {
				t.Errorf("output:\n%s\nwant:\n%s", got, tt.want)
			}
			if errors.Is(err, errOutsideTest) != tt.outside || (err != nil && !errors.Is(err, errOutsideTest)) {
				t.Errorf("error %v, want outside-test failure %v", err, tt.outside)
			}
		})
	}
}

func TestRunBadEvent(t *testing.T) {
	err := run(nil, strings.NewReader(`{"Action":`+"\n"), new(bytes.Buffer))
	if err == nil || errors.Is(err, errOutsideTest) || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("error %v, want one naming line 1", err)
	}
}

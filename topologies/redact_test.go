package topologies

import (
	"strings"
	"testing"
)

func TestRedactedDropsPassword(t *testing.T) {
	s := Spec{Target: "redis://alice:hunter2@127.0.0.1:6380/1"}.Redacted()
	if strings.Contains(s.Target, "hunter2") || !strings.Contains(s.Target, "alice:xxxxx@127.0.0.1:6380/1") {
		t.Errorf("redacted target %q", s.Target)
	}
	if got := (Spec{Target: "redis://127.0.0.1:6380"}).Redacted().Target; got != "redis://127.0.0.1:6380" {
		t.Errorf("URL without user changed: %q", got)
	}
}

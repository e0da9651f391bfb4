package topologies

import (
	"strings"
	"testing"
)

func TestRedactedDropsPassword(t *testing.T) {
	s := Spec{Targets: []string{"redis://alice:hunter2@127.0.0.1:6380/1"}}.Redacted()
	if strings.Contains(s.Targets[0], "hunter2") || !strings.Contains(s.Targets[0], "alice:xxxxx@127.0.0.1:6380/1") {
		t.Errorf("redacted target %q", s.Targets[0])
	}
	if got := (Spec{Targets: []string{"redis://127.0.0.1:6380"}}).Redacted().Targets[0]; got != "redis://127.0.0.1:6380" {
		t.Errorf("URL without user changed: %q", got)
	}
}

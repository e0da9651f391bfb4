package topologies

import (
	"errors"
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

func TestControllerOnlyForOwnNodes(t *testing.T) {
	ext, err := OpenExternal(Spec{Cluster: []string{"127.0.0.1:7000"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ControllerOf(ext); !errors.Is(err, ErrNotManaged) {
		t.Errorf("ControllerOf(external cluster) = %v; want ErrNotManaged", err)
	}
	emb, err := StartEmbedded()
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close()
	if _, err := ControllerOf(emb); !errors.Is(err, ErrNotManaged) {
		t.Errorf("ControllerOf(embedded) = %v; want ErrNotManaged (miniredis has no process to control)", err)
	}
}

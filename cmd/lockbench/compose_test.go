package main

import (
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// composeFile is the part of docker-compose.yml the test reads.
type composeFile struct {
	Services map[string]struct {
		Profiles    []string `yaml:"profiles"`
		NetworkMode string   `yaml:"network_mode"`
		Image       string   `yaml:"image"`
		Command     []string `yaml:"command"`
	} `yaml:"services"`
}

var (
	portFlag    = regexp.MustCompile(`(?:--port",?\s*"?|port )(\d+)`)
	loopbackUse = regexp.MustCompile(`127\.0\.0\.1:(\d+)`)
	profileLine = regexp.MustCompile("docker compose --profile (\\S+) up -d\\n(lockbench run [^\\n`]*)")
)

// The compose file has one profile per topology, and the examples of
// running against it in docs/topologies.md (once in the README) use its
// ports and parse as valid run flags. (No Docker engine runs here: the file
// is checked by parsing it.)
func TestComposeMatchesReadme(t *testing.T) {
	raw, err := os.ReadFile("../../docker-compose.yml")
	if err != nil {
		t.Fatal(err)
	}
	var compose composeFile
	if err := yaml.Unmarshal(raw, &compose); err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	ports := map[string][]int{} // profile → ports its servers listen on
	for name, svc := range compose.Services {
		if !strings.HasPrefix(svc.Image, "redis:") || svc.NetworkMode != "host" || len(svc.Profiles) != 1 {
			t.Errorf("service %s: image %q, network %q, profiles %v; want the redis image on the host network in one profile", name, svc.Image, svc.NetworkMode, svc.Profiles)
		}
		for _, m := range portFlag.FindAllStringSubmatch(strings.Join(svc.Command, " "), -1) {
			n, _ := strconv.Atoi(m[1])
			ports[svc.Profiles[0]] = append(ports[svc.Profiles[0]], n)
		}
	}
	profiles := []string{"single", "replicated", "sentinel", "cluster", "redlock"}
	for _, p := range profiles {
		if len(ports[p]) == 0 {
			t.Errorf("profile %s: missing or without ports", p)
		}
	}

	readme, err := os.ReadFile("../../docs/topologies.md")
	if err != nil {
		t.Fatal(err)
	}
	examples := profileLine.FindAllStringSubmatch(string(readme), -1)
	seen := map[string]bool{}
	for _, ex := range examples {
		profile, command := ex[1], ex[2]
		seen[profile] = true
		used := loopbackUse.FindAllStringSubmatch(command, -1)
		if len(used) == 0 {
			t.Errorf("README example for %s names no 127.0.0.1 address: %s", profile, command)
		}
		for _, u := range used {
			n, _ := strconv.Atoi(u[1])
			if !slices.Contains(ports[profile], n) {
				t.Errorf("README example for %s uses port %d; the profile's servers listen on %v", profile, n, ports[profile])
			}
		}
		args := strings.Fields(strings.TrimPrefix(command, "lockbench run "))
		if _, _, _, err := parseRun(args, io.Discard); err != nil {
			t.Errorf("README example for %s does not parse: %v", profile, err)
		}
	}
	for _, p := range profiles {
		if !seen[p] {
			t.Errorf("the README shows no `docker compose --profile %s up -d` followed by a lockbench run line", p)
		}
	}
}

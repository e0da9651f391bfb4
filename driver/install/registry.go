package install

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"time"

	"github.com/lockbench/lockbench/driver"
)

// registry is one registry: its name in messages, the versions it has of
// a package, and how a package's environment is built from it.
type registry struct {
	title    string
	versions func(ctx context.Context, name string) ([]string, error)
	install  func(ctx context.Context, pkg *driver.Package, version, dir string) error
}

// registryOf is the registry a Package names (checked by package driver).
func registryOf(name string) registry {
	switch name {
	case "pypi":
		return registry{"PyPI", pypiVersions, pypiInstall}
	case "npm":
		return registry{"the npm registry", npmVersions, npmInstall}
	}
	return registry{"Maven Central", mavenVersions, mavenInstall}
}

// Registries' addresses.
const (
	pypiURL  = "https://pypi.org/pypi/"
	mavenURL = "https://repo.maven.apache.org/maven2/"
)

// fetchTimeout bounds one request to a registry.
const fetchTimeout = 60 * time.Second

// get is the body of url, which must answer 200.
func get(ctx context.Context, url string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("ask the registry: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("ask the registry: %s: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("ask the registry: %s answered %s", url, resp.Status)
	}
	return body, nil
}

// pypiVersions are PyPI's releases of a project that have files.
func pypiVersions(ctx context.Context, name string) ([]string, error) {
	body, err := get(ctx, pypiURL+name+"/json")
	if err != nil {
		return nil, err
	}
	var doc struct {
		Releases map[string][]struct{} `json:"releases"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("PyPI's answer for %s: %w", name, err)
	}
	var vs []string
	for v, files := range doc.Releases {
		if len(files) > 0 {
			vs = append(vs, v)
		}
	}
	return vs, nil
}

// npmVersions are the npm registry's versions of a package, asked through
// npm so that its configuration (registry, proxy) applies.
func npmVersions(ctx context.Context, name string) ([]string, error) {
	out, err := run(ctx, "", "npm", "view", name, "versions", "--json")
	if err != nil {
		if strings.Contains(err.Error(), "E404") {
			return nil, nil
		}
		return nil, err
	}
	var vs []string
	if json.Unmarshal(out, &vs) != nil { // one version is a string
		var v string
		if err := json.Unmarshal(out, &v); err != nil {
			return nil, fmt.Errorf("npm view %s versions: %w", name, err)
		}
		vs = []string{v}
	}
	return vs, nil
}

// mavenVersions are Maven Central's versions of group:artifact.
func mavenVersions(ctx context.Context, name string) ([]string, error) {
	group, artifact, ok := strings.Cut(name, ":")
	if !ok {
		return nil, fmt.Errorf("maven package %q is not group:artifact", name)
	}
	body, err := get(ctx, mavenURL+strings.ReplaceAll(group, ".", "/")+"/"+artifact+"/maven-metadata.xml")
	if err != nil {
		return nil, err
	}
	var doc struct {
		Versions []string `xml:"versioning>versions>version"`
	}
	if err := xml.Unmarshal(body, &doc); err != nil {
		return nil, fmt.Errorf("Maven Central's metadata of %s: %w", name, err)
	}
	return doc.Versions, nil
}

// run runs a command in dir and returns its stdout; its error carries the
// last lines of what it said.
func run(ctx context.Context, dir, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		said := strings.TrimSpace(stderr.String() + "\n" + stdout.String())
		if lines := strings.Split(said, "\n"); len(lines) > 8 {
			said = strings.Join(lines[len(lines)-8:], "\n")
		}
		return nil, fmt.Errorf("%s %s: %w\n%s", name, strings.Join(args, " "), err, said)
	}
	return stdout.Bytes(), nil
}

package install

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
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
	case "crates":
		return registry{"crates.io", cratesVersions, cratesInstall}
	}
	return registry{"Maven Central", mavenVersions, mavenInstall}
}

// Registries' addresses.
const (
	pypiURL  = "https://pypi.org/pypi/"
	mavenURL = "https://repo.maven.apache.org/maven2/"
	// cratesIndexURL is crates.io's sparse index, the one Cargo reads.
	cratesIndexURL = "https://index.crates.io/"
)

// errNotFound is a registry's 404: it has no such package.
var errNotFound = errors.New("not found")

// fetchTimeout bounds one request to a registry.
const fetchTimeout = 60 * time.Second

// httpClient asks the registries, keeping no connection open once it has
// its answer: installs are rare, and an idle connection's goroutines
// outlive the command (the tests' leak check saw one).
var httpClient = &http.Client{Transport: func() http.RoundTripper {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DisableKeepAlives = true
	return t
}()}

// get is the body of url, which must answer 200.
func get(ctx context.Context, url string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("ask the registry: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, fmt.Errorf("ask the registry: %s: %w", url, err)
	}
	if resp.StatusCode == http.StatusNotFound {
		return nil, fmt.Errorf("ask the registry: %s answered %s: %w", url, resp.Status, errNotFound)
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

// cratesVersions are crates.io's versions of a crate that are not yanked,
// read from its sparse index (a JSON object a line, one per version): the
// file Cargo itself resolves from, which crates.io's web API mirrors.
func cratesVersions(ctx context.Context, name string) ([]string, error) {
	body, err := get(ctx, cratesIndexURL+cratesIndexPath(name))
	if errors.Is(err, errNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return cratesIndexVersions(body)
}

// cratesIndexPath is a crate's file in the index: 1/NAME, 2/NAME,
// 3/N/NAME, else NA/ME/NAME, lower-cased.
func cratesIndexPath(name string) string {
	name = strings.ToLower(name)
	switch len(name) {
	case 1, 2:
		return fmt.Sprintf("%d/%s", len(name), name)
	case 3:
		return "3/" + name[:1] + "/" + name
	}
	return name[:2] + "/" + name[2:4] + "/" + name
}

// cratesIndexVersions are the versions an index file lists, yanked ones
// left out.
func cratesIndexVersions(body []byte) ([]string, error) {
	var vs []string
	for line := range bytes.Lines(body) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var entry struct {
			Vers   string `json:"vers"`
			Yanked bool   `json:"yanked"`
		}
		if err := json.Unmarshal(line, &entry); err != nil {
			return nil, fmt.Errorf("crates.io's index: %w", err)
		}
		if !entry.Yanked {
			vs = append(vs, entry.Vers)
		}
	}
	return vs, nil
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

package install

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/lockbench/lockbench/driver"
)

// pypiInstall builds a venv in dir/venv holding pkg at version and the
// packages pinned beside it: pip downloads them with their dependencies,
// each file is held to the sha256 PyPI publishes for it, and pip installs
// exactly those files (--require-hashes, no index), the lock kept as
// dir/requirements.lock.
func pypiInstall(ctx context.Context, pkg *driver.Package, version, dir string) error {
	venv := filepath.Join(dir, "venv")
	if _, err := run(ctx, dir, "python3", "-m", "venv", venv); err != nil {
		return err
	}
	pip := filepath.Join(venv, "bin", "pip")
	dl := filepath.Join(dir, "download")
	args := append([]string{"download", "-q", "--disable-pip-version-check", "-d", dl, pkg.Name + "==" + version}, pkg.With...)
	if _, err := run(ctx, dir, pip, args...); err != nil {
		return err
	}
	files, err := os.ReadDir(dl)
	if err != nil {
		return err
	}
	var lock strings.Builder
	for _, f := range files {
		name, ver, ok := distribution(f.Name())
		if !ok {
			return fmt.Errorf("pip downloaded %s, which is no wheel or sdist", f.Name())
		}
		sum, err := fileSHA256(filepath.Join(dl, f.Name()))
		if err != nil {
			return err
		}
		if err := pypiHolds(ctx, name, ver, f.Name(), sum); err != nil {
			return err
		}
		fmt.Fprintf(&lock, "%s==%s --hash=sha256:%s\n", name, ver, sum)
	}
	lockFile := filepath.Join(dir, "requirements.lock")
	if err := os.WriteFile(lockFile, []byte(lock.String()), 0o644); err != nil {
		return err
	}
	if _, err := run(ctx, dir, pip, "install", "-q", "--disable-pip-version-check", "--no-index", "--find-links", dl, "--require-hashes", "-r", lockFile); err != nil {
		return err
	}
	return os.RemoveAll(dl)
}

// A wheel is NAME-VERSION-TAGS.whl, an sdist NAME-VERSION.tar.gz or .zip.
var (
	wheelName = regexp.MustCompile(`^([^-]+)-([^-]+)-.*\.whl$`)
	sdistName = regexp.MustCompile(`^(.+)-([^-]+)\.(tar\.gz|zip)$`)
)

// distribution is the project and version a downloaded file's name says.
func distribution(file string) (name, version string, ok bool) {
	for _, re := range []*regexp.Regexp{wheelName, sdistName} {
		if m := re.FindStringSubmatch(file); m != nil {
			return m[1], m[2], true
		}
	}
	return "", "", false
}

// pypiHolds checks that PyPI publishes file for name at version with the
// sha256 sum (the project's JSON lists every release's files and digests).
func pypiHolds(ctx context.Context, name, version, file, sum string) error {
	body, err := get(ctx, pypiURL+name+"/json")
	if err != nil {
		return err
	}
	var doc struct {
		Releases map[string][]struct {
			Filename string            `json:"filename"`
			Digests  map[string]string `json:"digests"`
		} `json:"releases"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return fmt.Errorf("PyPI's answer for %s: %w", name, err)
	}
	for _, f := range doc.Releases[version] {
		if f.Filename == file {
			if f.Digests["sha256"] != sum {
				return fmt.Errorf("%s: sha256 %s, PyPI publishes %s", file, sum, f.Digests["sha256"])
			}
			return nil
		}
	}
	return fmt.Errorf("%s: PyPI publishes no such file of %s %s", file, name, version)
}

func fileSHA256(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

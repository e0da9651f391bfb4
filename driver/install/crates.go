package install

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"

	"github.com/lockbench/lockbench/driver"
)

// cratesInstall builds the driver, a Cargo project in the driver's folder
// (pkg.Dir: Cargo.toml, Cargo.lock, src/), against exactly pkg at version:
// it copies the project into dir, sets the crate's dependency to
// =version, and runs cargo build --release there, into dir/target. Cargo
// holds every crate it downloads to the checksum the registry's index
// gives, and keeps the resolution in dir/Cargo.lock (the folder's lock
// copied first, so the other crates stay at its versions where they fit).
// The command's {env}/target/release/... is the binary.
func cratesInstall(ctx context.Context, pkg *driver.Package, version, dir string) error {
	if pkg.Dir == "" {
		return fmt.Errorf("crate %s: no driver folder to build from", pkg.Name)
	}
	if len(pkg.With) > 0 {
		return fmt.Errorf("crate %s: \"with\" is not used for crates: the driver's Cargo.toml pins the other crates", pkg.Name)
	}
	manifest, err := os.ReadFile(filepath.Join(pkg.Dir, "Cargo.toml"))
	if err != nil {
		return fmt.Errorf("crate %s: the driver's Cargo project: %w", pkg.Name, err)
	}
	pinned, err := pinCrate(manifest, pkg.Name, version)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "Cargo.toml"), pinned, 0o644); err != nil {
		return err
	}
	if lock, err := os.ReadFile(filepath.Join(pkg.Dir, "Cargo.lock")); err == nil {
		if err := os.WriteFile(filepath.Join(dir, "Cargo.lock"), lock, 0o644); err != nil {
			return err
		}
	}
	if err := os.CopyFS(filepath.Join(dir, "src"), os.DirFS(filepath.Join(pkg.Dir, "src"))); err != nil {
		return fmt.Errorf("crate %s: copy the driver's sources: %w", pkg.Name, err)
	}
	_, err = run(ctx, dir, "cargo", "build", "--release", "--quiet", "--target-dir", filepath.Join(dir, "target"))
	return err
}

// pinCrate is a Cargo.toml whose dependency on name requires exactly
// version: its line `name = "..."` or `name = { version = "...", ... }`.
func pinCrate(manifest []byte, name, version string) ([]byte, error) {
	line := regexp.MustCompile(`(?m)^(\s*` + regexp.QuoteMeta(name) + `\s*=\s*(?:\{[^}\n]*?\bversion\s*=\s*)?")[^"]*(")`)
	if !line.Match(manifest) {
		return nil, fmt.Errorf("crate %s: the driver's Cargo.toml has no dependency line on it to pin", name)
	}
	return line.ReplaceAll(manifest, []byte("${1}="+version+"${2}")), nil
}

// cratesSourceSum is a short sum of the driver's Cargo project (its
// manifest, lock and sources), so that a changed driver is built anew
// rather than an old build reused; "" when it cannot be read.
func cratesSourceSum(pkg *driver.Package) string {
	h := sha256.New()
	for _, f := range []string{"Cargo.toml", "Cargo.lock"} {
		data, _ := os.ReadFile(filepath.Join(pkg.Dir, f))
		fmt.Fprintf(h, "%s %d\n", f, len(data))
		h.Write(data)
	}
	src := filepath.Join(pkg.Dir, "src")
	err := filepath.WalkDir(src, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		fmt.Fprintf(h, "%s %d\n", rel, len(data))
		h.Write(data)
		return nil
	})
	if err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil)[:4])
}

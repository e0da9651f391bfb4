package install

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/lockbench/lockbench/driver"
)

// npmInstall makes dir a package that depends on exactly pkg at version
// and the packages pinned beside it, and installs it with npm, which holds
// every tarball to the integrity the registry gives and keeps it in
// dir/package-lock.json. The driver finds dir/node_modules through
// driver.LibEnv.
func npmInstall(ctx context.Context, pkg *driver.Package, version, dir string) error {
	deps := map[string]string{pkg.Name: version}
	for _, w := range pkg.With {
		i := strings.LastIndex(w, "@")
		if i <= 0 {
			return fmt.Errorf("package with %q is not NAME@VERSION", w)
		}
		deps[w[:i]] = w[i+1:]
	}
	manifest, err := json.MarshalIndent(map[string]any{"name": "lockbench-driver-env", "private": true, "dependencies": deps}, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), manifest, 0o644); err != nil {
		return err
	}
	_, err = run(ctx, dir, "npm", "install", "--no-audit", "--no-fund", "--save-exact", "--loglevel=error")
	return err
}

package runnertest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// RedissonBuilt is the stamp make drivers writes under the repository's
// drivers/ folder once mvn package has built all the Redisson driver runs
// (drivers/redisson/driver.json): the thin driver jar, the observe jar and
// Redisson's classpath in target/lib.
const RedissonBuilt = "redisson/target/.built"

// needRedisson fails the test, naming make drivers, when the Redisson
// driver under dir (drv:redisson and its other forms) cannot run: java is
// not on PATH, or the build is missing or older than the pom or a source
// file it is built from.
func needRedisson(t *testing.T, dir string) {
	t.Helper()
	if _, err := exec.LookPath("java"); err != nil {
		t.Fatalf("no java on PATH (%v): run make drivers (apt-get install -y openjdk-17-jdk-headless maven)", err)
	}
	built, err := os.Stat(filepath.Join(dir, RedissonBuilt))
	if err != nil {
		t.Fatalf("drivers/%s missing (%v): run make drivers (mvn package in drivers/redisson)", RedissonBuilt, err)
	}
	src := filepath.Join(dir, "redisson")
	err = filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() && d.Name() == "target" {
			if err == nil {
				err = filepath.SkipDir
			}
			return err
		}
		if ext := filepath.Ext(path); ext != ".java" && filepath.Base(path) != "pom.xml" {
			return nil
		}
		if info, err := d.Info(); err == nil && info.ModTime().After(built.ModTime()) {
			t.Fatalf("drivers/%s is older than %s: run make drivers", RedissonBuilt, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

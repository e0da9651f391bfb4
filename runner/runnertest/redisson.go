package runnertest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/lockbench/lockbench/driver/drivertest"
	"github.com/lockbench/lockbench/plan"
)

// RedissonJar is the Redisson driver's jar under the repository's drivers/
// folder, as make drivers builds it (drivers/redisson/driver.json runs it).
const RedissonJar = "redisson/target/redisson-driver.jar"

// WithRedisson is ov with the repository's drivers/ folder, where the
// Redisson driver (drv:redisson, drv:redisson-lease, drv:redisson-fenced,
// drv:redisson-semaphore) lives. It fails the test, naming make drivers,
// when java is not on PATH or the jar is missing or older than the pom or
// a source file it is built from.
func WithRedisson(t *testing.T, ov plan.Overrides) plan.Overrides {
	t.Helper()
	root, err := drivertest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	ov.DriversDir = filepath.Join(root, "drivers")
	if _, err := exec.LookPath("java"); err != nil {
		t.Fatalf("no java on PATH (%v): run make drivers (apt-get install -y openjdk-17-jdk-headless maven)", err)
	}
	jar, err := os.Stat(filepath.Join(ov.DriversDir, RedissonJar))
	if err != nil {
		t.Fatalf("drivers/%s missing (%v): run make drivers (mvn package in drivers/redisson)", RedissonJar, err)
	}
	src := filepath.Join(ov.DriversDir, "redisson")
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
		if info, err := d.Info(); err == nil && info.ModTime().After(jar.ModTime()) {
			t.Fatalf("drivers/%s is older than %s: run make drivers", RedissonJar, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ov
}

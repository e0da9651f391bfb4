package runnertest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// RedissonJar is the Redisson driver's jar under the repository's drivers/
// folder, as make drivers builds it (drivers/redisson/driver.json runs it).
const RedissonJar = "redisson/target/redisson-driver.jar"

// needRedisson fails the test, naming make drivers, when the Redisson
// driver under dir (drv:redisson and its other forms) cannot run: java is
// not on PATH, or the jar is missing or older than the pom or a source
// file it is built from.
func needRedisson(t *testing.T, dir string) {
	t.Helper()
	if _, err := exec.LookPath("java"); err != nil {
		t.Fatalf("no java on PATH (%v): run make drivers (apt-get install -y openjdk-17-jdk-headless maven)", err)
	}
	jar, err := os.Stat(filepath.Join(dir, RedissonJar))
	if err != nil {
		t.Fatalf("drivers/%s missing (%v): run make drivers (mvn package in drivers/redisson)", RedissonJar, err)
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
		if info, err := d.Info(); err == nil && info.ModTime().After(jar.ModTime()) {
			t.Fatalf("drivers/%s is older than %s: run make drivers", RedissonJar, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

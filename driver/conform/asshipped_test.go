package conform_test

import (
	"archive/zip"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lockbench/lockbench/driver"
	"github.com/lockbench/lockbench/driver/drivertest"
)

// A library runs as shipped: no form but an observed one puts a class of
// lockbench's in the library's own packages (Redisson's watchdog task was
// once replaced that way). The test reads the jars in each Redisson form's
// class path that the driver's folder builds; redisson-observed, whose
// listener does live in Redisson's package, shows that the check sees one.
func TestRedissonFormsRunAsShipped(t *testing.T) {
	known := drivertest.Repository(t)
	forms := 0
	for _, m := range known {
		if m.Library != "redisson" {
			continue
		}
		forms++
		inside := redissonClasses(t, m)
		if observed := strings.HasSuffix(m.Name, "-observed"); observed != (len(inside) > 0) {
			t.Errorf("%s: classes of its own in org/redisson: %v; want them only in an observed form", m.Name, inside)
		}
	}
	if forms < 2 {
		t.Fatalf("%d Redisson forms in drivers/; want the default forms and redisson-observed", forms)
	}
}

// redissonClasses lists the classes under org/redisson/ in the jars of m's
// class path that lie in its folder (not the library's own, in {env}).
func redissonClasses(t *testing.T, m driver.Manifest) []string {
	t.Helper()
	i := slices.Index(m.Command, "-cp")
	if i < 0 || i+1 >= len(m.Command) {
		t.Fatalf("%s: no -cp in %v", m.Name, m.Command)
	}
	var found []string
	for _, entry := range strings.Split(m.Command[i+1], ":") {
		if !strings.HasSuffix(entry, ".jar") || strings.Contains(entry, "*") {
			continue
		}
		path := entry
		if !filepath.IsAbs(path) {
			path = filepath.Join(m.Dir, entry)
		}
		if !strings.HasPrefix(path, m.Dir) {
			continue
		}
		z, err := zip.OpenReader(path)
		if err != nil {
			t.Fatalf("%s: %v (make drivers builds it)", m.Name, err)
		}
		for _, f := range z.File {
			if strings.HasPrefix(f.Name, "org/redisson/") && strings.HasSuffix(f.Name, ".class") {
				found = append(found, f.Name)
			}
		}
		_ = z.Close()
	}
	return found
}

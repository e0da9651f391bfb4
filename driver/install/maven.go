package install

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/lockbench/lockbench/driver"
)

// dependencyPlugin is the Maven plugin that copies a classpath.
const dependencyPlugin = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1"

// mavenInstall writes dir/pom.xml depending on pkg at version and the
// artifacts pinned beside it, and has Maven copy that classpath into
// dir/lib, with checksums strict (a jar whose .sha1 from Maven Central
// does not match fails the install).
func mavenInstall(ctx context.Context, pkg *driver.Package, version, dir string) error {
	var deps strings.Builder
	for _, coord := range append([]string{pkg.Name + ":" + version}, pkg.With...) {
		parts := strings.Split(coord, ":")
		if len(parts) != 3 {
			return fmt.Errorf("maven artifact %q is not group:artifact:version", coord)
		}
		fmt.Fprintf(&deps, "    <dependency><groupId>%s</groupId><artifactId>%s</artifactId><version>%s</version></dependency>\n", parts[0], parts[1], parts[2])
	}
	pom := `<?xml version="1.0" encoding="UTF-8"?>
<!-- written by lockbench (package driver/install): a library environment -->
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>io.github.lockbench</groupId>
  <artifactId>driver-env</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
` + deps.String() + `  </dependencies>
</project>
`
	if err := os.WriteFile(filepath.Join(dir, "pom.xml"), []byte(pom), 0o644); err != nil {
		return err
	}
	_, err := run(ctx, dir, "mvn", "-q", "-B", "--strict-checksums", dependencyPlugin+":copy-dependencies",
		"-DoutputDirectory="+filepath.Join(dir, "lib"), "-DincludeScope=runtime")
	return err
}

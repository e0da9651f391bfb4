package driver

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/lockbench/lockbench/inputerr"
	"github.com/lockbench/lockbench/variants"
)

// ManifestFile is the name of a driver folder's manifest.
const ManifestFile = "driver.json"

// DirEnv names the environment variable that says where the driver folders
// are (see DefaultDir).
const DirEnv = "LOCKBENCH_DRIVERS"

// Manifest is one registered driver: an entry of a driver.json, or a
// NAME=CMD spec (--driver).
type Manifest struct {
	// Name is what --variants drv:NAME and driver check NAME take.
	Name     string `json:"name"`
	Library  string `json:"library"`
	Language string `json:"language"`
	// Command is the program and its arguments. Command[0] is looked up
	// on PATH unless it holds a slash; a relative path resolves against
	// Dir, the process's working directory.
	Command []string `json:"command"`
	// Requires is the one line said when the command cannot run: how to
	// install what it needs.
	Requires string `json:"requires,omitempty"`
	Summary  string `json:"summary,omitempty"`
	// NoDefaultTTL says that the library has no default lease time (a
	// Redlock's): a run without --ttl tells the driver lockbench's own
	// default, variants.DefaultTTL, rather than 0 (LeaseTTL).
	NoDefaultTTL bool `json:"no_default_ttl,omitempty"`
	// Bare, when set, names the driver's bare loop (calibrate --driver):
	// the same command with one argument swapped, so that it runs in the
	// same environment at every version (BareCommand).
	Bare *BareProgram `json:"bare,omitempty"`
	// Package is the registry package of the driver's library, which
	// drv:NAME@VERSION installs at any version (package driver/install);
	// nil for a driver whose library comes from elsewhere.
	Package *Package `json:"package,omitempty"`
	// Version is the library version drv:NAME@VERSION asked for ("" for
	// the folder's own), and EnvDir the library environment the command
	// runs in (EnvPlaceholder): "" without a package.
	Version string `json:"-"`
	EnvDir  string `json:"-"`
	// rawCommand is Command before EnvPlaceholder was replaced.
	rawCommand []string
	// Dir is the driver's folder (the manifest's), or for a spec the
	// working directory lockbench had: the process runs there.
	Dir string `json:"-"`
	// From is the manifest file, "" for a spec.
	From string `json:"-"`
}

// LeaseTTL is the lease time the driver is told with the run's ttl (0:
// none given): ttl when given; else lockbench's default for a library
// without one of its own (NoDefaultTTL); else 0, the library's own.
func (m Manifest) LeaseTTL(ttl time.Duration) time.Duration {
	switch {
	case ttl > 0:
		return ttl
	case m.NoDefaultTTL:
		return variants.DefaultTTL
	}
	return 0
}

// DefaultDir is where the driver folders are when no --drivers flag says:
// $LOCKBENCH_DRIVERS when set; else ./drivers when it exists; else the
// drivers folder beside the directory of lockbench's binary (bin/lockbench
// built by make: the repository's drivers/); else ./drivers.
func DefaultDir() string {
	if dir := os.Getenv(DirEnv); dir != "" {
		return dir
	}
	if isDir("drivers") {
		return "drivers"
	}
	if exe, err := os.Executable(); err == nil {
		if dir := filepath.Join(filepath.Dir(filepath.Dir(exe)), "drivers"); isDir(dir) {
			return dir
		}
	}
	return "drivers"
}

func isDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}

// Load reads every dir/*/driver.json, sorted by name. A dir that does not
// exist has no drivers. A manifest that does not parse, an entry without a
// name or command, or a name registered twice is an error wrapping
// ErrBadDriver that names the file.
func Load(dir string) ([]Manifest, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*", ManifestFile))
	if err != nil {
		return nil, inputerr.Errorf(ErrBadDriver, "drivers: %s: %w", dir, err)
	}
	var all []Manifest
	for _, path := range paths {
		ms, err := readManifest(path)
		if err != nil {
			return nil, err
		}
		all = append(all, ms...)
	}
	return sorted(all)
}

func readManifest(path string) ([]Manifest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, inputerr.Errorf(ErrBadDriver, "driver manifest %s: %w", path, err)
	}
	var ms []Manifest
	if err := json.Unmarshal(data, &ms); err != nil {
		return nil, inputerr.Errorf(ErrBadDriver, "driver manifest %s: not a JSON array of drivers: %w", path, err)
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, inputerr.Errorf(ErrBadDriver, "driver manifest %s: %w", path, err)
	}
	for i := range ms {
		if ms[i].Name == "" || len(ms[i].Command) == 0 {
			return nil, inputerr.Errorf(ErrBadDriver, "driver manifest %s: entry %d needs a name and a command", path, i+1)
		}
		if err := checkName(ms[i].Name); err != nil {
			return nil, inputerr.Errorf(ErrBadDriver, "driver manifest %s: %w", path, err)
		}
		ms[i].Dir, ms[i].From, ms[i].rawCommand = dir, path, ms[i].Command
		if err := ms[i].Bare.check(ms[i]); err != nil {
			return nil, inputerr.Errorf(ErrBadDriver, "driver manifest %s: %s: %w", path, ms[i].Name, err)
		}
		if ms[i].Package != nil {
			if err := ms[i].Package.check(); err != nil {
				return nil, inputerr.Errorf(ErrBadDriver, "driver manifest %s: %s: %w", path, ms[i].Name, err)
			}
			ms[i].Package.Dir = dir
			ms[i].setEnv(ms[i].PinnedEnv())
		}
	}
	return ms, nil
}

// checkName refuses a name that a variant list or a spec could not carry.
func checkName(name string) error {
	if strings.ContainsAny(name, ",= \t/") {
		return fmt.Errorf("driver name %q has a comma, '=', '/' or a space", name)
	}
	return nil
}

func sorted(ms []Manifest) ([]Manifest, error) {
	slices.SortStableFunc(ms, func(a, b Manifest) int { return strings.Compare(a.Name, b.Name) })
	for i := 1; i < len(ms); i++ {
		if ms[i].Name == ms[i-1].Name {
			return nil, inputerr.Errorf(ErrBadDriver, "driver %q is registered twice: %s and %s", ms[i].Name, where(ms[i-1]), where(ms[i]))
		}
	}
	return ms, nil
}

func where(m Manifest) string {
	if m.From == "" {
		return "--driver " + m.Name + "=" + strings.Join(m.Command, " ")
	}
	return m.From
}

// ParseSpec parses a --driver spec, NAME=CMD: CMD is split at spaces (no
// shell quoting) and runs in the current directory.
func ParseSpec(spec string) (Manifest, error) {
	name, cmd, ok := strings.Cut(spec, "=")
	argv := strings.Fields(cmd)
	if !ok || name == "" || len(argv) == 0 {
		return Manifest{}, inputerr.Errorf(ErrBadDriver, "--driver: %q is not NAME=COMMAND (e.g. mylock=./mydriver --verbose)", spec)
	}
	if err := checkName(name); err != nil {
		return Manifest{}, inputerr.Errorf(ErrBadDriver, "--driver: %w", err)
	}
	return adHoc(name, argv)
}

func adHoc(name string, argv []string) (Manifest, error) {
	wd, err := os.Getwd()
	if err != nil {
		return Manifest{}, inputerr.Errorf(ErrBadDriver, "driver %s: %w", name, err)
	}
	return Manifest{Name: name, Command: argv, Dir: wd, rawCommand: argv}, nil
}

// Known is the drivers in dir's manifests and those of specs (NAME=CMD),
// sorted by name; a spec replaces a manifest of its name.
func Known(dir string, specs []string) ([]Manifest, error) {
	ms, err := Load(dir)
	if err != nil {
		return nil, err
	}
	for _, s := range specs {
		m, err := ParseSpec(s)
		if err != nil {
			return nil, err
		}
		ms = slices.DeleteFunc(ms, func(old Manifest) bool { return old.Name == m.Name })
		ms = append(ms, m)
	}
	return sorted(ms)
}

// Find returns the driver named nameOrCmd among known; a word that names
// none but holds a slash or a space is a command line of its own (split
// at spaces, named after its program). Anything else is ErrBadDriver,
// naming the known drivers.
func Find(known []Manifest, nameOrCmd string) (Manifest, error) {
	for _, m := range known {
		if m.Name == nameOrCmd {
			return m, nil
		}
	}
	if argv := strings.Fields(nameOrCmd); len(argv) > 0 && strings.ContainsAny(nameOrCmd, "/ ") {
		return adHoc(filepath.Base(argv[0]), argv)
	}
	var names []string
	for _, m := range known {
		names = append(names, m.Name)
	}
	list := strings.Join(names, ", ")
	if list == "" {
		list = "none; build them with make drivers, or set " + DirEnv
	}
	return Manifest{}, inputerr.Errorf(ErrBadDriver, "unknown driver %q (known: %s)", nameOrCmd, list)
}

// Program is the path of the program the driver's command runs: found on
// PATH, or resolved against Dir. It is an error wrapping ErrBadDriver, in
// one line with the manifest's requires, when there is none or it is not
// executable.
func (m Manifest) Program() (string, error) {
	prog := m.Command[0]
	var err error
	if strings.Contains(prog, "/") {
		if !filepath.IsAbs(prog) {
			prog = filepath.Join(m.Dir, prog)
		}
		err = executable(prog)
	} else {
		prog, err = exec.LookPath(prog)
	}
	if err == nil {
		return prog, nil
	}
	hint := ""
	if m.Requires != "" {
		hint = " (it needs: " + m.Requires + ")"
	}
	return "", inputerr.Errorf(ErrBadDriver, "driver %s: cannot run %q: %w%s", m.Name, m.Command[0], err, hint)
}

// executable says why path is no program lockbench can start.
func executable(path string) error {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errors.New("no such file")
	case err != nil:
		return err
	case info.IsDir():
		return errors.New("is a directory")
	case info.Mode()&0o111 == 0:
		return errors.New("not executable")
	}
	return nil
}

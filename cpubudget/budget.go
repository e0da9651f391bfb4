package cpubudget

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/lockbench/lockbench/procfs"
)

// ErrUnavailable is wrapped by the error of New when no cgroup can hold a
// process to a budget here (not Linux, no cpu controller, not writable);
// the message says why.
var ErrUnavailable = errors.New("cpubudget: no cgroup to hold processes to a CPU budget")

// ErrBadShare is wrapped by the error of New for a share outside (0, 1].
var ErrBadShare = errors.New("cpubudget: bad share of a core")

// RootEnv names the environment variable that moves the cgroup file
// systems' mount point from /sys/fs/cgroup (a container may mount them
// elsewhere).
const RootEnv = "LOCKBENCH_CGROUP_ROOT"

// The mechanisms, as the record echoes them.
const (
	MechanismV2 = "cgroup v2 cpu.max"
	MechanismV1 = "cgroup v1 cpu.cfs_quota_us"
)

// parentName is the cgroup every cgroup of lockbench's is under.
const parentName = "lockbench"

// period is the scheduling period of a quota: the share is enforced over
// every 10 ms, short so that a node held to 0.15 stalls for at most
// 8.5 ms at a time, not 85.
const period = 10 * time.Millisecond

// removeWait bounds how long Group.Remove waits for the group's last
// process to leave it (an exited process leaves once reaped).
const removeWait = 2 * time.Second

// Budget is a share of one core that each of its groups is held to.
type Budget struct {
	share     float64
	mechanism string
	hier      hierarchy
}

// hierarchy is the cpu controller's hierarchy found: its mount point and
// version.
type hierarchy struct {
	root string
	v2   bool
}

// seq numbers the groups of this process, so that names never collide.
var seq atomic.Int64

// New checks share, in (0, 1], and finds a cpu controller this process
// can write to, removing the stale cgroups of lockbench processes that are
// gone on the way.
func New(share float64) (*Budget, error) {
	if !(share > 0 && share <= 1) || math.IsNaN(share) {
		return nil, fmt.Errorf("%w: %v is not a share of a core in (0, 1], such as 0.15", ErrBadShare, share)
	}
	h, err := find()
	if err != nil {
		return nil, err
	}
	_, _ = removeStale(h)
	b := &Budget{share: share, hier: h, mechanism: MechanismV1}
	if h.v2 {
		b.mechanism = MechanismV2
	}
	// Prove the hierarchy writable now, not at the first node.
	g, err := b.Group("probe")
	if err != nil {
		return nil, err
	}
	if err := g.Remove(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return b, nil
}

// Share is the budget, a share of one core.
func (b *Budget) Share() float64 { return b.share }

// Mechanism says how the budget is held: MechanismV2 or MechanismV1.
func (b *Budget) Mechanism() string { return b.mechanism }

// root returns the mount point of the cgroup file systems.
func root() string {
	if r := os.Getenv(RootEnv); r != "" {
		return r
	}
	return "/sys/fs/cgroup"
}

// find returns the hierarchy with the cpu controller: the unified one
// (at the root, or at unified/ beside v1's) when it lists cpu, else v1's
// cpu (or cpu,cpuacct) hierarchy.
func find() (hierarchy, error) {
	if runtime.GOOS != "linux" {
		return hierarchy{}, fmt.Errorf("%w: cgroups are Linux's (this is %s)", ErrUnavailable, runtime.GOOS)
	}
	r := root()
	for _, dir := range []string{r, filepath.Join(r, "unified")} {
		b, err := os.ReadFile(filepath.Join(dir, "cgroup.controllers"))
		if err == nil && contains(strings.Fields(string(b)), "cpu") {
			return hierarchy{root: dir, v2: true}, nil
		}
	}
	for _, dir := range []string{filepath.Join(r, "cpu"), filepath.Join(r, "cpu,cpuacct")} {
		if _, err := os.Stat(filepath.Join(dir, "cpu.cfs_quota_us")); err == nil {
			return hierarchy{root: dir}, nil
		}
	}
	return hierarchy{}, fmt.Errorf("%w: no cpu controller under %s (neither cgroup v2 with cpu in cgroup.controllers nor v1's cpu/cpu.cfs_quota_us)", ErrUnavailable, r)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ownDir is this process's cgroup directory under the parent:
// p<pid>-<start time>, so that a later process with the same pid is told
// apart.
func ownDir(h hierarchy) string {
	start, _ := procfs.Start(os.Getpid())
	return filepath.Join(h.root, parentName, "p"+strconv.Itoa(os.Getpid())+"-"+start)
}

// Group is one cgroup held to its budget, for the processes of one node.
type Group struct {
	dir string
	v2  bool
	mu  sync.Mutex
}

// Group makes a cgroup held to the budget, named after name (made unique).
func (b *Budget) Group(name string) (*Group, error) {
	own := ownDir(b.hier)
	dir := filepath.Join(own, fmt.Sprintf("%s-%d", name, seq.Add(1)))
	fail := func(err error) (*Group, error) {
		_ = os.Remove(dir)
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	// Another budget of this process may remove the shared parents while
	// they are empty: make them again when they went.
	var err error
	for range 3 {
		if err = b.enable(own); err != nil {
			return fail(err)
		}
		if err = os.Mkdir(dir, 0o755); !errors.Is(err, fs.ErrNotExist) {
			break
		}
	}
	if err != nil {
		return fail(err)
	}
	// The kernel takes no quota under 1 ms: a small share gets a longer
	// period.
	periodUS := max(int64(period/time.Microsecond), int64(math.Ceil(1000/b.share)))
	quota := int64(math.Round(b.share * float64(periodUS)))
	if b.hier.v2 {
		err = write(dir, "cpu.max", fmt.Sprintf("%d %d", quota, periodUS))
	} else {
		err = write(dir, "cpu.cfs_period_us", strconv.FormatInt(periodUS, 10))
		if err == nil {
			err = write(dir, "cpu.cfs_quota_us", strconv.FormatInt(quota, 10))
		}
	}
	if err != nil {
		return fail(err)
	}
	return &Group{dir: dir, v2: b.hier.v2}, nil
}

// enable makes the parents down to own, turns the cpu controller on for
// their children (v2), and weighs them so that the groups get their
// budget on a busy machine: a cgroup competes with the other processes
// as one, with the weight of one process by default, so three nodes
// held to 0.15 would share one process's turn among a dozen busy ones.
// The quotas still cap them; the weight makes the budget a reservation
// as well as a cap.
func (b *Budget) enable(own string) error {
	if err := os.MkdirAll(own, 0o755); err != nil {
		return err
	}
	parents := []string{filepath.Dir(own), own}
	if b.hier.v2 {
		for _, dir := range append([]string{b.hier.root}, parents...) {
			if err := write(dir, "cgroup.subtree_control", "+cpu"); err != nil {
				return err
			}
		}
	}
	for _, dir := range parents {
		var err error
		if b.hier.v2 {
			err = write(dir, "cpu.weight", strconv.Itoa(weightV2))
		} else {
			err = write(dir, "cpu.shares", strconv.Itoa(sharesV1))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// The weight of lockbench's cgroups: 64 times a process's (v1 cpu.shares
// 1024, v2 cpu.weight 100), capped by v2's maximum.
const (
	sharesV1 = 64 * 1024
	weightV2 = 6400
)

// write writes value into the cgroup file dir/name.
func write(dir, name, value string) error {
	if err := os.WriteFile(filepath.Join(dir, name), []byte(value), 0o644); err != nil {
		return fmt.Errorf("write %s into %s: %w", value, filepath.Join(dir, name), err)
	}
	return nil
}

// Path is the group's directory.
func (g *Group) Path() string { return g.dir }

// Add moves process pid (every thread of it) into the group.
func (g *Group) Add(pid int) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := write(g.dir, "cgroup.procs", strconv.Itoa(pid)); err != nil {
		return fmt.Errorf("cpubudget: %w", err)
	}
	return nil
}

// Remove removes the group, waiting up to 2 s for its processes to leave
// (an exited process leaves once it is reaped), then its process's
// directory and the parent when they are empty. It may be called more
// than once.
func (g *Group) Remove() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	deadline := time.Now().Add(removeWait)
	for {
		err := os.Remove(g.dir)
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			break
		}
		if !errors.Is(err, syscall.EBUSY) || time.Now().After(deadline) {
			return fmt.Errorf("cpubudget: remove %s: %w", g.dir, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	removeIfEmpty(filepath.Dir(g.dir))
	return nil
}

// removeIfEmpty removes dir and then its parent, lockbench/, when they
// have no groups left; one in use by another group or process stays.
func removeIfEmpty(dir string) {
	if os.Remove(dir) == nil {
		_ = os.Remove(filepath.Dir(dir))
	}
}

// RemoveStale removes the cgroups left by lockbench processes that are
// gone (killed with SIGKILL: their nodes died with them, so the groups
// are empty) and returns them. A group that still holds a process (a
// detached topology's node, lockbench topology up) stays. Without a cpu
// controller it does nothing.
func RemoveStale() ([]string, error) {
	h, err := find()
	if err != nil {
		return nil, nil
	}
	return removeStale(h)
}

func removeStale(h hierarchy) ([]string, error) {
	owners, err := filepath.Glob(filepath.Join(h.root, parentName, "p*"))
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, own := range owners {
		pidText, start, _ := strings.Cut(strings.TrimPrefix(filepath.Base(own), "p"), "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil {
			continue
		}
		if now, alive := procfs.Start(pid); alive && now == start {
			continue
		}
		groups, _ := filepath.Glob(filepath.Join(own, "*"))
		for _, g := range groups {
			if info, err := os.Stat(g); err != nil || !info.IsDir() {
				continue
			}
			if err := os.Remove(g); err != nil {
				if !errors.Is(err, syscall.EBUSY) {
					errs = append(errs, fmt.Errorf("cpubudget: remove stale %s: %w", g, err))
				}
				continue
			}
			removed = append(removed, g)
		}
		if os.Remove(own) == nil {
			removed = append(removed, own)
		}
	}
	_ = os.Remove(filepath.Join(h.root, parentName))
	return removed, errors.Join(errs...)
}

// Leftovers lists every cgroup under lockbench's parent, this process's
// and others': what tests check is empty after a run.
func Leftovers() []string {
	h, err := find()
	if err != nil {
		return nil
	}
	var found []string
	_ = filepath.WalkDir(filepath.Join(h.root, parentName), func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			found = append(found, path)
		}
		return nil
	})
	return found
}

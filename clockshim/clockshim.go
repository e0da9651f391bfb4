// Package clockshim finds or builds lockbench's clock shim (clockshim.c:
// an LD_PRELOAD library that moves a process's wall clock by an offset
// another process can change while it runs) and keeps the offset files it
// reads. The redis-servers lockbench starts (package topologies) and the
// lock drivers' processes (package driver) run under it, so that clock
// faults reach servers and clients alike.
package clockshim

import (
	"context"
	"crypto/sha256"
	_ "embed" // the shim's source, for building it on demand
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"
)

// ErrNoShim: clock faults need the clock shim preloaded into the
// processes whose clocks they move, and there is none: no C compiler to
// build it, not Linux, or LOCKBENCH_CLOCK_SHIM=off.
var ErrNoShim = errors.New("no clock shim for clock faults")

// Env names the environment variable that says where the clock
// shim is: a path to a built lockbench-clock.so, or "off" to start nodes
// without it. Unset, lockbench looks beside its own binary (make build
// puts it there) and else builds it from its embedded source with the C
// compiler into the user's cache directory.
const Env = "LOCKBENCH_CLOCK_SHIM"

// shimName is the shim's file name beside the lockbench binary.
const shimName = "lockbench-clock.so"

// offsetEnv names the file a process's shim reads its offset from.
const offsetEnv = "LOCKBENCH_CLOCK_OFFSET_FILE"

// buildTimeout bounds the C compiler.
const buildTimeout = 60 * time.Second

//go:embed src/clockshim.c
var source []byte

// Path returns the path of the clock shim, building it when needed, or why
// there is none (wrapping ErrNoShim). It reads Env on every call.
func Path() (string, error) {
	path, err := locate()
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrNoShim, err)
	}
	// ld.so splits LD_PRELOAD at spaces and colons.
	if strings.ContainsAny(path, " :") {
		return "", fmt.Errorf("%w: its path %q has a space or a colon, which LD_PRELOAD cannot take (set %s)", ErrNoShim, path, Env)
	}
	return path, nil
}

func locate() (string, error) {
	if runtime.GOOS != "linux" {
		return "", fmt.Errorf("it is preloaded with LD_PRELOAD, which needs Linux, not %s", runtime.GOOS)
	}
	switch env := os.Getenv(Env); env {
	case "off":
		return "", fmt.Errorf("turned off by %s=off", Env)
	case "":
	default:
		if _, err := os.Stat(env); err != nil {
			return "", fmt.Errorf("%s: %w", Env, err)
		}
		return filepath.Abs(env)
	}
	if exe, err := os.Executable(); err == nil {
		beside := filepath.Join(filepath.Dir(exe), shimName)
		if _, err := os.Stat(beside); err == nil {
			return beside, nil
		}
	}
	return built()
}

// built builds the shim once per process, into the user's cache
// directory, where a later process finds it: once per version of the
// source. Without a cache directory it builds into a new private temp
// directory, never into a shared, guessable path.
var built = sync.OnceValues(func() (string, error) {
	dir, err := os.UserCacheDir()
	if err == nil {
		dir = filepath.Join(dir, "lockbench")
		err = os.MkdirAll(dir, 0o700)
	}
	if err != nil {
		if dir, err = os.MkdirTemp("", "lockbench-clock-*"); err != nil {
			return "", err
		}
	}
	return build(dir)
})

// build compiles the embedded source with cc (or gcc) into dir,
// unless it is there already.
func build(dir string) (string, error) {
	h := sha256.New()
	h.Write(source)
	h.Write([]byte(runtime.GOARCH))
	name := "lockbench-clock-" + hex.EncodeToString(h.Sum(nil)[:6]) + ".so"
	out := filepath.Join(dir, name)
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	cc, err := exec.LookPath("cc")
	if err != nil {
		if cc, err = exec.LookPath("gcc"); err != nil {
			return "", fmt.Errorf("no C compiler (cc, gcc) to build it (install one: apt-get install -y gcc), "+
				"none beside lockbench (make build puts one there) and %s is not set", Env)
		}
	}
	// Build beside the target and rename it into place: another process
	// may build the same shim at the same time.
	tmp, err := os.MkdirTemp(dir, ".build-*")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	src := filepath.Join(tmp, "clockshim.c")
	if err := os.WriteFile(src, source, 0o600); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	built := filepath.Join(tmp, name)
	cmd := exec.CommandContext(ctx, cc, "-O2", "-fPIC", "-shared", "-o", built, src, "-ldl")
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%s could not build it: %w: %s", cc, err, strings.Join(strings.Fields(string(msg)), " "))
	}
	if err := os.Rename(built, out); err != nil {
		return "", err
	}
	return out, nil
}

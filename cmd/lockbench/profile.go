package main

import (
	"errors"
	"fmt"
	"os"
	"runtime/pprof"
)

// startCPUProfile starts writing this process's CPU profile to path (""
// for none) and returns what stops it and closes the file; go tool pprof
// reads it. A file that cannot be created is bad input.
func startCPUProfile(path string) (stop func() error, err error) {
	if path == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, usagef("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		_ = os.Remove(path)
		return nil, usagef("--cpuprofile: %w", err)
	}
	return func() error {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		return nil
	}, nil
}

// withCPUProfile runs fn with the CPU profile of path ("" for none)
// written meanwhile; the profile's error comes after fn's.
func withCPUProfile(path string, fn func() error) error {
	stop, err := startCPUProfile(path)
	if err != nil {
		return err
	}
	err = fn()
	if serr := stop(); serr != nil {
		return errors.Join(err, serr)
	}
	return err
}

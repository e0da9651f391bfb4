package procfs

import (
	"bytes"
	"os"
	"strconv"
)

// pids lists the processes /proc shows; nil where there is none.
func pids() []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var all []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil && e.IsDir() {
			all = append(all, pid)
		}
	}
	return all
}

// Group lists the live processes (not zombies) of process group pgid,
// from /proc; nil where there is no /proc.
func Group(pgid int) []int {
	var in []int
	for _, pid := range pids() {
		f, ok := statFields(pid)
		// After the state: ppid, then pgrp.
		if ok && len(f) > 2 && f[0] != "Z" && f[0] != "X" && f[2] == strconv.Itoa(pgid) {
			in = append(in, pid)
		}
	}
	return in
}

// WithEnv lists the live processes (not zombies) whose environment holds
// the entry NAME=VALUE given as entry, from /proc/PID/environ (readable
// for this user's processes only); nil where there is no /proc.
func WithEnv(entry string) []int {
	var with []int
	for _, pid := range pids() {
		if State(pid) == 'Z' {
			continue
		}
		env, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		if err != nil {
			continue
		}
		for _, kv := range bytes.Split(env, []byte{0}) {
			if string(kv) == entry {
				with = append(with, pid)
				break
			}
		}
	}
	return with
}

// Command baddriver is a lock driver that breaks the protocol or the lock
// on purpose, for the tests of package driver and of lockbench driver
// check. Its first argument says how:
//
//	noexclusion  speaks the protocol, but every acquire succeeds at once
//	exit-init    writes to stderr and exits with status 3 on init
//	garbage      answers an acquire with a line that is not JSON
//	unknown-id   answers an acquire naming a request that does not exist
//	wrong-client answers an acquire for a client with nothing in flight
//	silent       answers init, then nothing
//	deaf         answers init, then reads nothing more from its stdin
//	linger       like noexclusion, but stays when its stdin closes
//	stubborn     like linger, and ignores SIGTERM
//
// With a second argument "child" it first starts a child of its own (a
// copy of itself that sleeps), to show that a driver's children go with it.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/lockbench/lockbench/driver/wire"
)

func main() {
	mode := os.Args[1]
	if mode == "sleep" {
		time.Sleep(time.Hour)
		return
	}
	if len(os.Args) > 2 && os.Args[2] == "child" {
		child := exec.Command(os.Args[0], "sleep")
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "baddriver: child:", err)
			os.Exit(1)
		}
		fmt.Fprintln(os.Stderr, "baddriver: child", child.Process.Pid)
	}
	if mode == "stubborn" {
		signal.Ignore(syscall.SIGTERM)
	}
	out := bufio.NewWriter(os.Stdout)
	send := func(m wire.Message) {
		line, _ := wire.Encode(m)
		out.Write(append(line, '\n'))
		out.Flush()
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	seq := 0
	for in.Scan() {
		var req wire.Message
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			send(wire.ErrorReply(nil, true, wire.CodeMalformed, err.Error()))
			continue
		}
		if err := req.CheckRequest(); err != nil {
			send(wire.ErrorReply(&req, true, wire.CodeMalformed, err.Error()))
			continue
		}
		switch {
		case req.Type == wire.TypeInit && mode == "exit-init":
			fmt.Fprintln(os.Stderr, "baddriver: loading the lock library")
			fmt.Fprintln(os.Stderr, "ImportError: no module named redis")
			os.Exit(3)
		case req.Type == wire.TypeInit:
			ok := wire.ReplyTo(&req, wire.TypeInitOK)
			ok.Library, ok.Version, ok.Language = "baddriver-"+mode, "0", "go"
			ok.Capabilities = &wire.Capabilities{Extend: true, Blocking: true, Modes: []string{wire.ModeSingle}}
			send(ok)
			if mode == "deaf" {
				time.Sleep(time.Hour)
			}
		case mode == "silent":
		case req.Type == wire.TypeAcquire && mode == "garbage":
			fmt.Fprintln(out, "hello from baddriver, this is not JSON")
			out.Flush()
		case req.Type == wire.TypeAcquire && mode == "unknown-id":
			ok := wire.ReplyTo(&req, wire.TypeAcquireOK)
			ok.InReplyTo, ok.Token = wire.Int64(*req.ID+1000), "t"
			send(ok)
		case req.Type == wire.TypeAcquire && mode == "wrong-client":
			ok := wire.ReplyTo(&req, wire.TypeAcquireOK)
			ok.Client, ok.Token = wire.Int(*req.Client+100), "t"
			send(ok)
		case req.Type == wire.TypeAcquire:
			seq++
			ok := wire.ReplyTo(&req, wire.TypeAcquireOK)
			ok.Token = strconv.Itoa(seq)
			send(ok)
		case req.Type == wire.TypeRelease:
			send(wire.ReplyTo(&req, wire.TypeReleaseOK))
		case req.Type == wire.TypeExtend:
			send(wire.ReplyTo(&req, wire.TypeExtendOK))
		}
	}
	if mode == "linger" || mode == "stubborn" {
		time.Sleep(time.Hour)
	}
}

package topologies

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/lockbench/lockbench/inputerr"
)

// ErrNotAServer: a server binary that, asked its --version, did not say
// it is Redis or Valkey.
var ErrNotAServer = errors.New("not a Redis or Valkey server")

const (
	// identifyTimeout bounds how long a binary may take to answer
	// --version.
	identifyTimeout = time.Second
	// identifyLimit bounds what is read of its answer.
	identifyLimit = 4 << 10
)

// identified holds each binary's answer to identify, by path, so that a
// binary is asked once per process however many nodes it runs.
var identified sync.Map // path -> error (nil: a server)

// identify asks the binary at path its --version, as redis-server and
// valkey-server answer it ("Redis server v=7.0.15 sha=...", "Valkey
// server v=8.0.1 ..."), within identifyTimeout, and refuses, as bad
// input naming the path and what it answered, a binary that says
// anything else, says nothing, or does not exit in time.
func identify(path string) error {
	if err, ok := identified.Load(path); ok {
		return asError(err)
	}
	err := askVersion(path)
	identified.Store(path, err)
	return err
}

func asError(v any) error {
	if v == nil {
		return nil
	}
	return v.(error)
}

func askVersion(path string) error {
	ctx, cancel := context.WithTimeout(context.Background(), identifyTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	out := &limitedBuffer{limit: identifyLimit}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.WaitDelay = 100 * time.Millisecond // a child holding the output open does not hold lockbench
	cmd.SysProcAttr = childAttr(false)     // its own process group, which Cancel kills whole
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	runErr := cmd.Run()
	answer := firstLine(out.String())
	if strings.HasPrefix(answer, "Redis server v=") || strings.HasPrefix(answer, "Valkey server v=") {
		return nil
	}
	said := fmt.Sprintf("answered %q", answer)
	switch {
	case ctx.Err() != nil:
		said = fmt.Sprintf("did not answer within %v (it said %q)", identifyTimeout, answer)
	case answer == "" && runErr != nil:
		said = fmt.Sprintf("answered nothing (%v)", runErr)
	case answer == "":
		said = "answered nothing"
	}
	return inputerr.Errorf(ErrNotAServer, "%s is not a Redis or Valkey server: asked its --version, it %s (give %s, %s or the path of a redis-server or valkey-server)",
		path, said, ServerRedis, ServerValkey)
}

// firstLine is the first non-empty line of text, trimmed and cut to 120
// bytes.
func firstLine(text string) string {
	for line := range strings.SplitSeq(text, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			if len(line) > 120 {
				line = line[:120] + "..."
			}
			return line
		}
	}
	return ""
}

// limitedBuffer keeps the first limit bytes written to it and drops the
// rest, so that a binary that answers without end costs nothing.
type limitedBuffer struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	limit int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := b.limit - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (b *limitedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

package topologies

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
)

// logSegment bounds one segment of a node's log. A node's log is its
// current file and the segment before it: at most two segments, whatever
// the server writes, so a server that logs in a loop (a crash loop, a
// flood) cannot fill the disk.
const logSegment = 2 << 20

// nodeLog is the bounded log of one node, kept in file and file.1: it
// takes what the node's processes write to their stdout and stderr (the
// server logs there: logfile ""), across restarts. When the current file
// reaches its segment it becomes file.1, dropping the segment before it,
// and the new file opens with a line saying how much was dropped.
type nodeLog struct {
	path    string
	segment int64

	mu      sync.Mutex
	file    *os.File // nil until the first write, and once the node's directory is gone
	size    int64    // bytes in file
	dropped int64    // bytes dropped so far: every segment before file.1
	prev    int64    // bytes in file.1
}

func newNodeLog(path string) *nodeLog { return &nodeLog{path: path, segment: logSegment} }

// Write appends p to the log, starting a new segment when the current
// one is full. It never fails: a log that cannot be written (the node's
// directory removed while a process still writes) drops what it is given.
func (l *nodeLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for rest := p; len(rest) > 0; {
		if l.size >= l.segment {
			l.rotate()
		}
		if l.file == nil && !l.open() {
			return len(p), nil
		}
		chunk := rest[:min(int64(len(rest)), l.segment-l.size)]
		n, err := l.file.Write(chunk)
		l.size += int64(n)
		if err != nil {
			return len(p), nil
		}
		rest = rest[n:]
	}
	return len(p), nil
}

// open opens the current file for appending; it reports whether it could.
func (l *nodeLog) open() bool {
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return false
	}
	info, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return false
	}
	l.file, l.size = f, info.Size()
	return true
}

// rotate moves the full current file to file.1 and opens a new one whose
// first line says what was dropped.
func (l *nodeLog) rotate() {
	_ = l.file.Close()
	l.file = nil
	l.dropped += l.prev
	l.prev = l.size
	if err := os.Rename(l.path, l.path+".1"); err != nil {
		return
	}
	if !l.open() {
		return
	}
	line := fmt.Sprintf("lockbench: this log is kept to its last %d bytes: %d bytes dropped so far; the %d bytes before this line are in %s.1\n",
		2*l.segment, l.dropped, l.prev, l.path)
	n, _ := l.file.WriteString(line)
	l.size += int64(n)
}

// copyFrom copies r into the log until r ends (every process holding
// the pipe's other end has exited), then closes r and the log's file.
func (l *nodeLog) copyFrom(r io.ReadCloser) {
	_, _ = io.Copy(l, r)
	_ = r.Close()
	_ = l.Close()
}

// Close closes the current file; a later Write opens it again.
func (l *nodeLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.file == nil {
		return nil
	}
	err := l.file.Close()
	l.file = nil
	return err
}

// lastLine returns the last line of the node's current log that contains
// any of words, or "" when none does (or the log cannot be read): what a
// server said about an operation that did not complete.
func (n *node) lastLine(words ...string) string {
	b, err := os.ReadFile(n.logFile)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		for _, w := range words {
			if strings.Contains(lines[i], w) {
				return strings.TrimSpace(lines[i])
			}
		}
	}
	return ""
}

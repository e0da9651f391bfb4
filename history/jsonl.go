package history

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
)

// WriteJSON writes h as JSON lines: the header ([Meta]) on the first line,
// then one [Event] per line, in order. docs/history.md describes the
// fields. It writes the events without encoding/json, so that a history of
// millions of events takes a fraction of a second.
func WriteJSON(w io.Writer, h *History) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	meta := h.Meta
	if meta.Schema == "" {
		meta.Schema = Schema
	}
	header, err := json.Marshal(meta)
	if err != nil {
		return fmt.Errorf("history: header: %w", err)
	}
	bw.Write(header)
	bw.WriteByte('\n')
	quoted := make(map[string][]byte) // each key's JSON string, once
	buf := make([]byte, 0, 256)
	for _, e := range h.Events {
		q, ok := quoted[e.Key]
		if !ok {
			q, _ = json.Marshal(e.Key) // a string always marshals
			quoted[e.Key] = q
		}
		buf = appendEvent(buf[:0], e, q)
		if _, err := bw.Write(buf); err != nil {
			return fmt.Errorf("history: write: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("history: write: %w", err)
	}
	return nil
}

// appendEvent appends e's JSON line, with its key already quoted, to buf.
// The field order is the struct's, as encoding/json would write it.
func appendEvent(buf []byte, e Event, key []byte) []byte {
	buf = append(buf, `{"index":`...)
	buf = strconv.AppendInt(buf, int64(e.Index), 10)
	buf = append(buf, `,"type":"`...)
	buf = append(buf, e.Type.String()...)
	buf = append(buf, `","op":"`...)
	buf = append(buf, e.Op.String()...)
	buf = append(buf, `","process":`...)
	buf = strconv.AppendInt(buf, int64(e.Process), 10)
	buf = append(buf, `,"key":`...)
	buf = append(buf, key...)
	buf = append(buf, `,"time":`...)
	buf = strconv.AppendInt(buf, e.Time, 10)
	buf = append(buf, `,"invoke":`...)
	buf = strconv.AppendInt(buf, int64(e.Invoke), 10)
	buf = append(buf, `,"lease":`...)
	buf = strconv.AppendInt(buf, int64(e.Lease), 10)
	if e.Fence != 0 {
		buf = append(buf, `,"fence":`...)
		buf = strconv.AppendUint(buf, e.Fence, 10)
	}
	return append(buf, "}\n"...)
}

// ReadJSON reads a history written by [WriteJSON] and validates it
// ([History.Validate]). Blank lines are skipped; unknown fields are
// ignored, so that later versions of the schema may add some. Errors about
// the content wrap [ErrFormat] and name the line.
func ReadJSON(r io.Reader) (*History, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
	h := &History{}
	line, sawHeader := 0, false
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		if !sawHeader {
			if err := json.Unmarshal(b, &h.Meta); err != nil {
				return nil, fmt.Errorf("%w: line %d: header: %v", ErrFormat, line, err)
			}
			if h.Meta.Schema != Schema {
				return nil, fmt.Errorf("%w: line %d: schema %q, want %q", ErrFormat, line, h.Meta.Schema, Schema)
			}
			sawHeader = true
			continue
		}
		var e Event
		if err := json.Unmarshal(b, &e); err != nil {
			return nil, fmt.Errorf("%w: line %d: %v", ErrFormat, line, err)
		}
		h.Events = append(h.Events, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("history: read: %w", err)
	}
	if !sawHeader {
		return nil, fmt.Errorf("%w: no header line", ErrFormat)
	}
	if err := h.Validate(); err != nil {
		return nil, err
	}
	return h, nil
}

package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// DefaultDir is where runs are saved unless told otherwise.
const DefaultDir = "results/runs"

// ErrBadRecord is wrapped by every Load error about the file's content.
var ErrBadRecord = errors.New("not a lockbench record")

// DefaultPath is the file a run is saved to by default.
func DefaultPath(runID string) string { return filepath.Join(DefaultDir, runID+".json") }

// Save writes rec to path atomically (see WriteAtomic). The one directory
// it creates is DefaultDir, lockbench's own, when path is in it; any other
// directory must exist.
func Save(rec *Record, path string) error {
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return fmt.Errorf("record: encode record: %w", err)
	}
	if filepath.Clean(filepath.Dir(path)) == filepath.Clean(DefaultDir) {
		if err := os.MkdirAll(DefaultDir, 0o755); err != nil {
			return fmt.Errorf("record: %w", err)
		}
	}
	return WriteAtomic(path, append(data, '\n'))
}

// WriteAtomic writes data to path through a temporary file in the same
// directory, synced, then renamed over path: a reader never sees a torn
// file, and an interrupted write leaves none behind. The directory must
// exist: WriteAtomic creates none.
func WriteAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("record: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("record: write %s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil { // CreateTemp makes it 0600
		tmp.Close()
		return fmt.Errorf("record: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("record: sync %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("record: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("record: %w", err)
	}
	return nil
}

// Load reads a record and checks its schema version.
func Load(path string) (*Record, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	return Decode(path, data)
}

// Decode decodes a record read from where (a file, a witness) and checks
// its tool and schema version: a record of this version is read as it is,
// one of an older version Decode knows (see migrations) is migrated to
// this one; any other is refused.
func Decode(where string, data []byte) (*Record, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%s: %w: the file is empty", where, ErrBadRecord)
	}
	var head recordHead
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&head); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", where, ErrBadRecord, err)
	}
	migrate, known := migrations[head.Schema]
	if head.Tool != "lockbench" || (head.Schema != SchemaVersion && !known) {
		return nil, fmt.Errorf("%s: %w: tool %q schema %d (this lockbench reads schema %s)", where, ErrBadRecord, head.Tool, head.Schema, readable)
	}
	if known {
		var err error
		if data, err = migrate(data); err != nil {
			return nil, fmt.Errorf("%s: %w: schema %d: %w", where, ErrBadRecord, head.Schema, err)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var rec Record
	if err := dec.Decode(&rec); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", where, ErrBadRecord, err)
	}
	if rec.Tool != "lockbench" || rec.Schema != SchemaVersion {
		return nil, fmt.Errorf("%s: %w: tool %q schema %d (this lockbench reads schema %s)", where, ErrBadRecord, rec.Tool, rec.Schema, readable)
	}
	return &rec, nil
}

// recordHead is what Decode reads first: which tool wrote the record, in
// which version.
type recordHead struct {
	Schema int    `json:"schema"`
	Tool   string `json:"tool"`
}

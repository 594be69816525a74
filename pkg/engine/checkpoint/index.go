package checkpoint

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// The checkpoint index: one JSON line per checkpoint a session began
// (checkpoints.jsonl in the session's checkpoint directory), so beginning a prompt's
// checkpoint costs one append rather than a directory and a manifest (most prompts edit
// nothing). The index lists every checkpoint of the session; a checkpoint that captured
// files also has its directory with manifest.json, which holds the files.
//
// The index stays open for appending while the session lives (closed by Close, and
// before a rewrite replaces the file), so a prompt's line costs one write.
//
// Crash safety: an append is one write of a whole line; a line cut short by a crash is
// skipped when the index is read, and the next append starts on a new line. A rewind
// rewrites the index whole (temp file and rename). Sessions whose checkpoints predate
// the index have only manifests: they are read as before, and the first write of the
// index lists them all.

// IndexFile is the index's name in a session's checkpoint directory.
const IndexFile = "checkpoints.jsonl"

// indexEntry is one line of the index: a Checkpoint without its files.
type indexEntry struct {
	ID        string    `json:"id"`
	Seq       int       `json:"seq"`
	Prompt    string    `json:"prompt"`
	Messages  int       `json:"messages"`
	CreatedAt time.Time `json:"createdAt"`
}

// indexState is what the store knows of its index file.
type indexState struct {
	exists bool     // the file exists (it then lists every checkpoint)
	torn   bool     // its last line lacks its newline: the next append starts a new one
	f      *os.File // open for appending, nil until the first append
}

func (c *Store) indexPath() string { return filepath.Join(c.dir, IndexFile) }

// readIndex reads the index's entries in file order (mu held). Lines that do not decode
// (a line cut short by a crash) are skipped.
func (c *Store) readIndex() ([]*Checkpoint, error) {
	data, err := os.ReadFile(c.indexPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading checkpoints %s: %w", c.indexPath(), err)
	}
	c.index.exists = true
	c.index.torn = len(data) > 0 && data[len(data)-1] != '\n'
	var out []*Checkpoint
	for line := range bytes.SplitSeq(data, []byte{'\n'}) {
		var e indexEntry
		if len(line) == 0 || json.Unmarshal(line, &e) != nil || e.ID == "" || e.Seq <= 0 {
			continue
		}
		out = append(out, &Checkpoint{ID: e.ID, Seq: e.Seq, Prompt: e.Prompt, Messages: e.Messages,
			CreatedAt: e.CreatedAt, Files: []File{}})
	}
	return out, nil
}

// record adds cp to the index (mu held): one appended line, or, when the index does not
// exist yet but older checkpoints do, a new index listing them and cp.
func (c *Store) record(cp *Checkpoint) error {
	if !c.index.exists && len(c.list) > 0 {
		return c.writeIndex(append(c.list[:len(c.list):len(c.list)], cp))
	}
	line, err := indexLine(cp)
	if err != nil {
		return err
	}
	if c.index.torn {
		line = append([]byte{'\n'}, line...)
	}
	if err := c.appendIndex(line); err != nil {
		return fmt.Errorf("recording checkpoint %s: %w", cp.ID, err)
	}
	c.index.exists, c.index.torn = true, false
	return nil
}

// appendIndex appends line to the index with one write, opening it (and making the
// directory) on the first append.
func (c *Store) appendIndex(line []byte) error {
	if c.index.f == nil {
		f, err := os.OpenFile(c.indexPath(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if errors.Is(err, fs.ErrNotExist) {
			if err := os.MkdirAll(c.dir, 0o700); err != nil {
				return err
			}
			f, err = os.OpenFile(c.indexPath(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		}
		if err != nil {
			return err
		}
		c.index.f = f
	}
	if _, err := c.index.f.Write(line); err != nil {
		c.closeIndex() // reopened by the next append
		return err
	}
	return nil
}

// closeIndex closes the index file if it is open (mu held).
func (c *Store) closeIndex() {
	if c.index.f != nil {
		_ = c.index.f.Close()
		c.index.f = nil
	}
}

// rewriteIndex replaces the index with the checkpoints kept (mu held).
func (c *Store) rewriteIndex() error {
	return c.writeIndex(c.list)
}

// writeIndex writes an index listing list, atomically (temp file and rename).
func (c *Store) writeIndex(list []*Checkpoint) error {
	var b []byte
	for _, cp := range list {
		line, err := indexLine(cp)
		if err != nil {
			return err
		}
		b = append(b, line...)
	}
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return fmt.Errorf("writing checkpoints %s: %w", c.indexPath(), err)
	}
	c.closeIndex() // it would append to the file the rename replaces
	tmp := c.indexPath() + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("writing checkpoints %s: %w", c.indexPath(), err)
	}
	if err := os.Rename(tmp, c.indexPath()); err != nil {
		return fmt.Errorf("writing checkpoints %s: %w", c.indexPath(), err)
	}
	c.index = indexState{exists: true}
	return nil
}

func indexLine(cp *Checkpoint) ([]byte, error) {
	b, err := json.Marshal(indexEntry{ID: cp.ID, Seq: cp.Seq, Prompt: cp.Prompt, Messages: cp.Messages, CreatedAt: cp.CreatedAt})
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", cp.ID, err)
	}
	return append(b, '\n'), nil
}

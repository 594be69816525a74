package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog/redact"
)

const (
	ManifestFile       = "manifest.json"
	checkpointFilesDir = "files"
	maxPromptHead      = 80
)

// File is one file a checkpoint captured: its content before the prompt first
// changed it.
type File struct {
	Path    string      `json:"path"`
	Existed bool        `json:"existed"`
	Blob    string      `json:"blob,omitempty"` // name under files/ when Existed
	Mode    fs.FileMode `json:"mode,omitempty"`
	// Wrote is the SHA-256 of what the session's last Write or Edit of the file in this
	// prompt left there (hex; empty when none succeeded): a rewind keeps a file whose
	// content differs from it, since someone else changed it since.
	Wrote string `json:"wrote,omitempty"`
}

// Checkpoint is the state recorded when a prompt began.
type Checkpoint struct {
	ID        string    `json:"id"` // the prompt id
	Seq       int       `json:"seq"`
	Prompt    string    `json:"prompt"`   // the head of the prompt's text
	Messages  int       `json:"messages"` // conversation length when the prompt began
	CreatedAt time.Time `json:"createdAt"`
	Files     []File    `json:"files"`
}

// FilePaths are the files the checkpoint's prompt changed, in capture order.
func (c Checkpoint) FilePaths() []string {
	out := make([]string, 0, len(c.Files))
	for _, f := range c.Files {
		out = append(out, f.Path)
	}
	return out
}

// Store keeps one session's checkpoints on disk and in memory.
type Store struct {
	dir string // .robota/checkpoints/{sessionId}
	now func() time.Time

	mu     sync.Mutex
	loaded bool
	list   []*Checkpoint // by Seq
	cur    *Checkpoint   // the running prompt's
	index  indexState
}

func NewStore(cwd, sessionID string, now func() time.Time) *Store {
	return &Store{dir: filepath.Join(cwd, ".robota", "checkpoints", sessionID), now: now}
}

// loadLocked reads the checkpoints a previous run of the session left (once): the
// index's entries, each with the files of its manifest when it has one. A session whose
// checkpoints predate the index has only manifests; they are all loaded.
func (c *Store) loadLocked() error {
	if c.loaded {
		return nil
	}
	entries, err := os.ReadDir(c.dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("reading checkpoints %s: %w", c.dir, err)
	}
	indexed, err := c.readIndex()
	if err != nil {
		return err
	}
	manifests := map[string]*Checkpoint{}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(c.dir, e.Name(), ManifestFile))
		if err != nil {
			continue // a checkpoint being written when the process died; nothing to restore from
		}
		var cp Checkpoint
		if json.Unmarshal(b, &cp) != nil || cp.ID != e.Name() {
			continue
		}
		manifests[cp.ID] = &cp
	}
	if c.index.exists {
		// The index is authoritative: a manifest it does not list belongs to a checkpoint
		// a rewind dropped (its directory not yet removed when the process died).
		for _, cp := range indexed {
			if m := manifests[cp.ID]; m != nil && m.Seq == cp.Seq {
				cp = m
			}
			c.list = append(c.list, cp)
		}
	} else {
		for _, cp := range manifests {
			c.list = append(c.list, cp)
		}
	}
	slices.SortStableFunc(c.list, func(a, b *Checkpoint) int { return a.Seq - b.Seq })
	c.loaded = true
	return nil
}

// Begin starts the checkpoint of prompt id. It is recorded in the index at once (so a
// prompt that edits nothing is listed too); its directory and manifest are made by the
// first Capture.
func (c *Store) Begin(id, prompt string, messages int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.loadLocked(); err != nil {
		return err
	}
	seq := 1
	if n := len(c.list); n > 0 {
		seq = c.list[n-1].Seq + 1
	}
	if slices.ContainsFunc(c.list, func(x *Checkpoint) bool { return x.ID == id }) {
		id = fmt.Sprintf("%s-%d", id, seq) // a resumed session whose ids repeat (injected id generators)
	}
	// Redacted as every file robota writes is: a key pasted into the prompt stays out.
	cp := &Checkpoint{ID: id, Seq: seq, Prompt: head(redact.String(prompt)), Messages: messages, CreatedAt: c.now(), Files: []File{}}
	if err := c.record(cp); err != nil {
		return err
	}
	c.list = append(c.list, cp)
	c.cur = cp
	return nil
}

// Close closes the index file; a later prompt would open it again.
func (c *Store) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closeIndex()
}

// End closes the running prompt's checkpoint.
func (c *Store) End() {
	c.mu.Lock()
	c.cur = nil
	c.mu.Unlock()
}

// Capture saves path's content before the running prompt first changes it; later
// changes of the same file in the same prompt keep the first pre-image.
func (c *Store) Capture(path string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	cp := c.cur
	if cp == nil || slices.ContainsFunc(cp.Files, func(f File) bool { return f.Path == path }) {
		return nil
	}
	f := File{Path: path}
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("checkpoint of %s: %w", path, err)
	case !st.Mode().IsRegular():
		return nil // the tool refuses it; nothing to keep
	default:
		data, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("checkpoint of %s: %w", path, err)
		}
		f.Existed, f.Mode, f.Blob = true, st.Mode().Perm(), strconv.Itoa(len(cp.Files))
		if err := os.MkdirAll(filepath.Join(c.dir, cp.ID, checkpointFilesDir), 0o700); err != nil {
			return fmt.Errorf("checkpoint of %s: %w", path, err)
		}
		if err := os.WriteFile(filepath.Join(c.dir, cp.ID, checkpointFilesDir, f.Blob), data, 0o600); err != nil {
			return fmt.Errorf("checkpoint of %s: %w", path, err)
		}
	}
	cp.Files = append(cp.Files, f)
	return c.writeManifest(cp)
}

// Wrote records what the running prompt's Write or Edit left in path.
func (c *Store) Wrote(path string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	cp := c.cur
	if cp == nil {
		return nil
	}
	i := slices.IndexFunc(cp.Files, func(f File) bool { return f.Path == path })
	if i < 0 {
		return nil
	}
	sum, ok := fileSum(path)
	if !ok {
		return nil
	}
	cp.Files[i].Wrote = sum
	return c.writeManifest(cp)
}

// fileSum is the SHA-256 of a regular file's content (not followed through a link).
func fileSum(path string) (string, bool) {
	st, err := os.Lstat(path)
	if err != nil || !st.Mode().IsRegular() {
		return "", false
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:]), true
}

func (c *Store) writeManifest(cp *Checkpoint) error {
	b, err := json.MarshalIndent(cp, "", "  ")
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", cp.ID, err)
	}
	if err := os.MkdirAll(filepath.Join(c.dir, cp.ID), 0o700); err != nil {
		return fmt.Errorf("checkpoint %s: %w", cp.ID, err)
	}
	p := filepath.Join(c.dir, cp.ID, ManifestFile)
	tmp := p + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("checkpoint %s: %w", cp.ID, err)
	}
	if err := os.Rename(tmp, p); err != nil {
		return fmt.Errorf("checkpoint %s: %w", cp.ID, err)
	}
	return nil
}

// List lists the session's checkpoints, oldest first.
func (c *Store) List() ([]Checkpoint, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.loadLocked(); err != nil {
		return nil, err
	}
	out := make([]Checkpoint, 0, len(c.list))
	for _, cp := range c.list {
		v := *cp
		v.Files = slices.Clone(cp.Files)
		out = append(out, v)
	}
	return out, nil
}

// Restore rolls the files back to their state when checkpoint id began: the checkpoints
// from the newest down to id are undone in reverse order (so the oldest pre-image of a
// file wins) and files that did not exist are removed. The checkpoints after id are
// deleted: their pre-images describe states that no longer lead anywhere. Checkpoint id
// itself is kept, since the files are now as it began, so a later `/rewind id` can still
// cut the conversation back to it (and restoring it again changes nothing). It returns
// the checkpoint and the files restored and removed.
func (c *Store) Restore(id string) (cp Checkpoint, restored, removed, kept []string, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.loadLocked(); err != nil {
		return cp, nil, nil, nil, err
	}
	i := slices.IndexFunc(c.list, func(x *Checkpoint) bool { return x.ID == id })
	if i < 0 {
		return cp, nil, nil, nil, fmt.Errorf("%w: %s", ErrUnknown, id)
	}
	final := map[string]File{}
	owner := map[string]string{}
	lastWrote := map[string]string{} // what the session's newest write left in each file
	for j := len(c.list) - 1; j >= 0; j-- {
		for _, f := range c.list[j].Files {
			if _, ok := lastWrote[f.Path]; !ok && f.Wrote != "" {
				lastWrote[f.Path] = f.Wrote
			}
			if j >= i {
				final[f.Path], owner[f.Path] = f, c.list[j].ID
			}
		}
	}
	paths := make([]string, 0, len(final))
	for p := range final {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		f := final[p]
		st, lerr := os.Lstat(p)
		isLink := lerr == nil && st.Mode()&fs.ModeSymlink != 0
		if want, ok := lastWrote[p]; ok && lerr == nil && !isLink {
			if now, _ := fileSum(p); now != want {
				kept = append(kept, p) // changed since the session wrote it: someone's work
				continue
			}
		}
		if dst, err := os.Lstat(filepath.Dir(p)); err == nil && dst.Mode()&fs.ModeSymlink != 0 {
			kept = append(kept, p) // its directory is a link now: nothing is written through it
			continue
		}
		if !f.Existed {
			// Remove drops a link itself, never what it points to.
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return cp, restored, removed, kept, fmt.Errorf("removing %s: %w", p, err)
			}
			removed = append(removed, p)
			continue
		}
		data, err := os.ReadFile(filepath.Join(c.dir, owner[p], checkpointFilesDir, f.Blob))
		if err != nil {
			return cp, restored, removed, kept, fmt.Errorf("reading the checkpoint of %s: %w", p, err)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return cp, restored, removed, kept, fmt.Errorf("restoring %s: %w", p, err)
		}
		if err := replaceFile(p, data, f.Mode); err != nil {
			return cp, restored, removed, kept, fmt.Errorf("restoring %s: %w", p, err)
		}
		restored = append(restored, p)
	}
	cp = *c.list[i]
	dropped := c.list[i+1:]
	c.list = c.list[:i+1]
	// The index is rewritten first: once it no longer lists the dropped checkpoints,
	// their directories are garbage, ignored if the process dies before they go.
	err = c.rewriteIndex()
	for _, x := range dropped {
		_ = os.RemoveAll(filepath.Join(c.dir, x.ID))
	}
	return cp, restored, removed, kept, err
}

// replaceFile puts data at p as a new file renamed into place: a link at p is replaced,
// never written through.
func replaceFile(p string, data []byte, mode fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".rewind*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // gone after the rename; cleans up a failure
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), mode); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), p)
}

// head is the first line of a prompt, bounded.
func head(s string) string {
	for i, r := range s {
		if r == '\n' {
			s = s[:i]
			break
		}
	}
	if utf8.RuneCountInString(s) <= maxPromptHead {
		return s
	}
	return string([]rune(s)[:maxPromptHead]) + "…"
}

package fs

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	iofs "io/fs"
	"os"
	"path/filepath"

	"github.com/robota-sdk/robota-go/pkg/tools/workspace"
)

const defaultFileMode iofs.FileMode = 0o644

// writeAtomic replaces p's content with data: a temp file in the same directory is written,
// fsynced, given the old file's permission bits (or 0644 for a new file), renamed over the
// target and the directory fsynced, so readers see the old or the new content, never a mix.
// Missing parent directories are created. It reports whether the file is new.
func writeAtomic(p workspace.Path, data []byte) (created bool, err error) {
	root, err := p.OpenRoot()
	if err != nil {
		return false, err
	}
	defer root.Close()
	rel := p.Rel()
	if rel == "." {
		return false, errIsDir
	}
	mode := defaultFileMode
	switch fi, err := root.Stat(rel); {
	case err == nil && fi.IsDir():
		return false, errIsDir
	case err == nil:
		mode = fi.Mode().Perm()
	case errors.Is(err, iofs.ErrNotExist):
		created = true
	default:
		return false, err
	}
	dir := filepath.Dir(rel)
	if err := root.MkdirAll(dir, 0o755); err != nil {
		return false, err
	}
	tmp := filepath.Join(dir, "."+filepath.Base(rel)+".tmp-"+randomSuffix())
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return false, err
	}
	committed := false
	defer func() {
		if !committed {
			f.Close()
			root.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return false, err
	}
	// The umask shaped the create mode; fchmod sets exactly the bits we keep.
	if err := f.Chmod(mode); err != nil {
		return false, err
	}
	if err := f.Sync(); err != nil {
		return false, err
	}
	if err := f.Close(); err != nil {
		return false, err
	}
	if err := root.Rename(tmp, rel); err != nil {
		return false, err
	}
	committed = true
	if d, err := root.Open(dir); err == nil {
		// Durability of the rename; a failure here does not undo the write.
		_ = d.Sync()
		d.Close()
	}
	return created, nil
}

var errIsDir = errors.New("is a directory")

func randomSuffix() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

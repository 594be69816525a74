package store

import (
	"fmt"
	"os"
	"path/filepath"
)

// writeFileAtomic replaces path with data so that readers (and a crash at any instant) see
// either the old file or the complete new one: write a temp file in the same directory
// (rename is atomic only within a file system), fsync it, rename it over path, then fsync
// the directory so the rename itself is durable. Temp names start with '.' and do not end
// in ".json", so they are never taken for records.
func writeFileAtomic(path string, data []byte, perm os.FileMode) error {
	f, err := createFileAtomic(path, data, perm)
	if err != nil {
		return err
	}
	return f.Close()
}

// createFileAtomic is writeFileAtomic that returns the new file open for reading and
// writing (the temp file, renamed), so a writer that goes on appending to it need not
// open it again.
func createFileAtomic(path string, data []byte, perm os.FileMode) (_ *os.File, err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, err
	}
	tmpName := tmp.Name()
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmpName)
		}
	}()
	if err = tmp.Chmod(perm); err != nil {
		return nil, err
	}
	if _, err = tmp.Write(data); err != nil {
		return nil, err
	}
	if err = tmp.Sync(); err != nil {
		return nil, err
	}
	if err = os.Rename(tmpName, path); err != nil {
		return nil, err
	}
	if err = syncDir(dir); err != nil {
		_ = tmp.Close() // renamed: the file stays, only the rename may not be durable
		return nil, err
	}
	return tmp, nil
}

// syncDir fsyncs a directory so entries created, renamed or removed in it are durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

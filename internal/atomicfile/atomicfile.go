// Package atomicfile writes a file whole or not at all: a reader (or a crash) sees the old
// contents or the new ones, never a part.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write replaces path with data through a synced temporary file in the same directory
// and a rename; the directory is made with dirPerm when missing.
func Write(path string, data []byte, dirPerm os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), dirPerm); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

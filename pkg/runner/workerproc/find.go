package workerproc

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
)

// Name is the worker binary's name.
const Name = "robota-worker"

// InstallHint says how to get a robota-worker binary where Find looks.
const InstallHint = "install robota-worker beside robota or on PATH: in a robota-go checkout, " +
	"`make build` puts it in bin/ next to bin/robota, or `go build -o $(go env GOPATH)/bin/robota-worker ./cmd/worker` " +
	"puts it beside a `go install`ed robota"

// ErrNotFound is returned by Find when no robota-worker binary is beside the executable or
// on PATH.
var ErrNotFound = errors.New("robota-worker not found")

// Find returns the robota-worker binary beside exe (the running executable when empty),
// else the one on PATH.
func Find(exe string) (string, error) {
	path, where, err := FindBinary(Name, exe)
	if err != nil {
		return "", fmt.Errorf("%w %s: %s", ErrNotFound, where, InstallHint)
	}
	return path, nil
}

// FindBinary returns the binary name beside exe (the running executable when empty),
// else the one on PATH. When there is none, where says where it looked ("at DIR/name or
// on PATH") for the caller's error, and err wraps fs.ErrNotExist.
func FindBinary(name, exe string) (path, where string, err error) {
	if exe == "" {
		if e, err := os.Executable(); err == nil {
			exe = e
		}
	}
	var beside string
	if exe != "" {
		beside = filepath.Join(filepath.Dir(exe), name)
		if st, err := os.Stat(beside); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return beside, "", nil
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, "", nil
	}
	where = "on PATH"
	if beside != "" {
		where = "at " + beside + " or on PATH"
	}
	return "", where, fmt.Errorf("%s not found %s: %w", name, where, fs.ErrNotExist)
}

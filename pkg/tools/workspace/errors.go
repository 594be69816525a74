package workspace

import "errors"

var (
	// ErrInvalidPath: the path is empty, contains a NUL byte or cannot be resolved.
	ErrInvalidPath = errors.New("invalid path")
	// ErrOutsideWorkspace: the path, lexically or through a symbolic link, leaves every
	// working directory.
	ErrOutsideWorkspace = errors.New("path outside the workspace")
)

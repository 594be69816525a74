package contextload

import (
	"errors"
	"fmt"
)

var (
	// ErrNoCwd: Options.Cwd is empty.
	ErrNoCwd = errors.New("contextload: no working directory")
	// ErrImportCycle: an @import leads back to a file that is importing it.
	ErrImportCycle = errors.New("import cycle")
	// ErrImportDepth: an @import is more than MaxImportDepth hops from a discovered file.
	ErrImportDepth = errors.New("import depth limit exceeded")
	// ErrImportNotFound: an @path that looks like a file path names no regular file.
	ErrImportNotFound = errors.New("import target not found")
	// ErrImportOutside: an @import leaves the allowed roots (see Options.ImportRoots).
	ErrImportOutside = errors.New("import outside the allowed directories")
	// ErrTooLarge: a context file exceeds MaxFileBytes.
	ErrTooLarge = errors.New("file too large")
	// ErrEscapes: a context file of the project is a link leading out of the project.
	ErrEscapes = errors.New("skipped: a context file of the project must stay in the project")
	// ErrDenied: a Read deny rule covers the file (Options.Denied).
	ErrDenied = errors.New("skipped: a Read deny rule covers it")
	// ErrUnreadable: a file exists but cannot be read.
	ErrUnreadable = errors.New("file unreadable")
)

// Diagnostic is a non-fatal finding of context loading: the file concerned, the line of
// the @import when there is one, and the reason (one of the sentinels above).
type Diagnostic struct {
	File string
	Line int
	Err  error
}

func (d Diagnostic) String() string {
	if d.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", d.File, d.Line, d.Err)
	}
	return fmt.Sprintf("%s: %v", d.File, d.Err)
}

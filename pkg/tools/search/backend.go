package search

import (
	"bytes"
	"context"
	"io"
	"os"
)

// Output modes of Grep.
const (
	ModeFiles   = "files_with_matches"
	ModeContent = "content"
	ModeCount   = "count"
)

// grepRequest is one search, already validated and resolved.
type grepRequest struct {
	root      string // real absolute path of the directory or file to search
	isFile    bool
	pat       *compiled
	mode      string
	before    int
	after     int
	multiline bool
	glob      *overrideGlob
	globRaw   string
	typeGlobs []string
	exclude   Exclude // files and directories never to search
	// maxFileSize is the size in bytes above which a file met in a directory walk is
	// skipped (a file named as the path is checked before the backend runs).
	maxFileSize int64
}

func (r grepRequest) policy() walkPolicy {
	return withExclude(grepPolicy{glob: r.glob, typeGlobs: r.typeGlobs}, r.exclude)
}

// fileResult is what a backend found in one file: the number of matching lines and, in
// content mode, the matching and context lines in order.
type fileResult struct {
	path  string
	count int
	lines []resultLine
}

type resultLine struct {
	num   int
	text  string // without the line terminator
	match bool
}

// backend runs searches. Both implementations return the same results for the same request;
// the parity test proves it.
type backend interface {
	name() string
	search(ctx context.Context, req grepRequest) ([]fileResult, error)
}

// sniffLen is how much of a file decides whether it is binary (git looks at as much).
const sniffLen = 8000

// binaryPrefix reports a NUL byte in the first sniffLen bytes: such files are skipped.
func binaryPrefix(data []byte) bool {
	if len(data) > sniffLen {
		data = data[:sniffLen]
	}
	return bytes.IndexByte(data, 0) >= 0
}

// binaryFile applies binaryPrefix to the file at path (unreadable files count as binary:
// they are skipped).
func binaryFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return true
	}
	defer f.Close()
	buf := make([]byte, sniffLen)
	n, err := io.ReadFull(f, buf)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return true
	}
	return binaryPrefix(buf[:n])
}

package contextload

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// The startup memory caps (spec, Project Memory: "capped to the first 200 lines and at
// most 25KB").
const (
	MemoryMaxLines = 200
	MemoryMaxBytes = 25 * 1024
)

// MemoryFile is the project memory index, relative to the project root.
var MemoryFile = ".robota" + sep + "memory" + sep + "MEMORY.md"

// Memory is the startup part of the project memory. Topic files are not read here.
type Memory struct {
	// Path is the absolute path of MEMORY.md; empty when there is none.
	Path string
	// Content is the capped text.
	Content string
	// Truncated is set when a cap applied; TotalLines and TotalBytes describe the file.
	Truncated  bool
	TotalLines int
	TotalBytes int
}

// loadMemory reads the memory index of the project root. One that leaves the project
// through a link, or that check refuses (a Read deny rule), is skipped with a diagnostic.
func loadMemory(root string, check func(path string) error) (Memory, *Diagnostic) {
	p := filepath.Join(root, MemoryFile)
	if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
		return Memory{}, nil
	}
	if err := check(p); err != nil {
		return Memory{}, &Diagnostic{File: filepath.ToSlash(MemoryFile), Err: err}
	}
	data, err := os.ReadFile(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Memory{}, nil
	case err != nil:
		return Memory{}, &Diagnostic{File: filepath.ToSlash(MemoryFile), Err: fmt.Errorf("%w: %v", ErrUnreadable, err)}
	}
	m := CapMemory(string(data))
	m.Path = p
	return m, nil
}

// CapMemory keeps the first MemoryMaxLines lines of text, then at most MemoryMaxBytes
// bytes, cutting at a line end when one is in range and never inside a UTF-8 sequence.
func CapMemory(text string) Memory {
	m := Memory{TotalBytes: len(text), TotalLines: countLines(text)}
	out := text
	if m.TotalLines > MemoryMaxLines {
		i := nthIndex(out, '\n', MemoryMaxLines)
		out = out[:i+1]
	}
	if len(out) > MemoryMaxBytes {
		cut := out[:MemoryMaxBytes]
		if nl := strings.LastIndexByte(cut, '\n'); nl >= 0 {
			cut = cut[:nl+1]
		} else { // one huge line: cut before the rune that straddles the cap
			end := MemoryMaxBytes
			for end > 0 && !utf8.RuneStart(out[end]) {
				end--
			}
			cut = out[:end]
		}
		out = cut
	}
	m.Content = out
	m.Truncated = len(out) < len(text)
	return m
}

// countLines counts lines as an editor does: a final line without a newline counts.
func countLines(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// nthIndex returns the index of the n-th occurrence (1-based) of c in s.
func nthIndex(s string, c byte, n int) int {
	at := -1
	for ; n > 0; n-- {
		j := strings.IndexByte(s[at+1:], c)
		if j < 0 {
			return len(s) - 1
		}
		at += j + 1
	}
	return at
}

package tui

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
)

// maxFileMatches bounds the @ completion list.
const maxFileMatches = 8

// fileCompleter completes "@path" words from the session's directory. It reads a
// directory once per distinct word typed, not per frame.
type fileCompleter struct {
	root    string
	word    string
	matches []string
}

// atWord returns the "@..." word ending at the cursor: its start index and text
// without the @.
func (e *editor) atWord() (start int, word string, ok bool) {
	i := e.cursor
	for i > 0 && !unicode.IsSpace(e.buf[i-1]) {
		i--
	}
	if i == e.cursor || e.buf[i] != '@' {
		return 0, "", false
	}
	return i, string(e.buf[i+1 : e.cursor]), true
}

// complete lists the paths under root that start with word (directories end in /),
// skipping hidden entries unless the word asks for them.
func (c *fileCompleter) complete(word string) []string {
	if c.root == "" || strings.Contains(word, "..") {
		return nil
	}
	if word == c.word && c.matches != nil {
		return c.matches
	}
	dir, base := filepath.Split(word)
	entries, err := os.ReadDir(filepath.Join(c.root, filepath.FromSlash(dir)))
	var out []string
	if err == nil {
		for _, e := range entries {
			name := e.Name()
			if !strings.HasPrefix(name, base) || strings.HasPrefix(name, ".") && !strings.HasPrefix(base, ".") {
				continue
			}
			p := dir + name
			if e.IsDir() {
				p += "/"
			}
			out = append(out, p)
		}
	}
	sort.Strings(out)
	if len(out) > maxFileMatches {
		out = out[:maxFileMatches]
	}
	if out == nil {
		out = []string{}
	}
	c.word, c.matches = word, out
	return out
}

// completeAt replaces the @word at the cursor with "@"+path (a space after a file, so
// the next word can start; none after a directory, to go on into it).
func (e *editor) completeAt(path string) {
	start, _, ok := e.atWord()
	if !ok {
		return
	}
	repl := "@" + path
	if !strings.HasSuffix(path, "/") {
		repl += " "
	}
	rest := append([]rune(nil), e.buf[e.cursor:]...)
	e.buf = append(append(e.buf[:start], []rune(repl)...), rest...)
	e.cursor = start + len([]rune(repl))
}

package contextload

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/robota-sdk/robota-go/internal/lazy"
)

// importRef is one `@path` token.
type importRef struct {
	line   int
	target string
}

// Compiled on first use, not at start-up: every robota run, --version included, pays for
// package initialisation (PERF-NOTES.md).
var importToken = lazy.NewRegexp(`(?:^|\s)@(\S+)`)

// trailingPunct may follow an @path in prose ("see @docs/a.md.").
const trailingPunct = ".,;:!?)]}'\""

// ParseImports returns the `@path` references of a Markdown text: an `@` at the start of
// a line or after white space, outside inline code spans and fenced code blocks. Only
// tokens that look like paths (containing `/` or `.`, or starting with `~`) count, so
// `@someone` in prose is not an import.
func ParseImports(content string) []importRef {
	var out []importRef
	fence := ""
	for i, line := range strings.Split(content, "\n") {
		if f := fenceMarker(line); f != "" {
			switch {
			case fence == "":
				fence = f
			case strings.HasPrefix(f, fence):
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		for _, m := range importToken.FindAllStringSubmatch(stripCodeSpans(line), -1) {
			t := m[1]
			if strings.ContainsAny(t, "/.") || strings.HasPrefix(t, "~") {
				out = append(out, importRef{line: i + 1, target: t})
			}
		}
	}
	return out
}

// fenceMarker returns the ``` or ~~~ run opening or closing a fenced block, or "".
func fenceMarker(line string) string {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return ""
	}
	for _, c := range []string{"`", "~"} {
		n := len(t) - len(strings.TrimLeft(t, c))
		if n >= 3 {
			return strings.Repeat(c, n)
		}
	}
	return ""
}

// stripCodeSpans blanks the text between matching backtick runs (a run closes at the
// next run of the same length, as in CommonMark). Linear: runs are indexed by length.
func stripCodeSpans(line string) string {
	if !strings.Contains(line, "`") {
		return line
	}
	type run struct{ at, n int }
	var runs []run
	byLen := map[int][]int{} // run length -> indexes into runs, ascending
	for i := 0; i < len(line); {
		if line[i] != '`' {
			i++
			continue
		}
		n := 1
		for i+n < len(line) && line[i+n] == '`' {
			n++
		}
		byLen[n] = append(byLen[n], len(runs))
		runs = append(runs, run{i, n})
		i += n
	}
	b := []byte(line)
	next := map[int]int{} // run length -> position in byLen[n] of the next candidate
	for k := 0; k < len(runs); k++ {
		r := runs[k]
		list := byLen[r.n]
		pos := next[r.n]
		for pos < len(list) && list[pos] <= k {
			pos++
		}
		if pos == len(list) {
			next[r.n] = pos
			continue // unmatched: literal backticks
		}
		closing := runs[list[pos]]
		for j := r.at; j < closing.at+closing.n; j++ {
			b[j] = ' '
		}
		next[r.n] = pos + 1
		k = list[pos] // resume after the closing run
	}
	return string(b)
}

// expand loads the imports of f, depth first. stack holds the real paths of the chain
// from the discovered file to f; chainRoot is the discovered file's directory.
func (r *reader) expand(f File, stack []string, chainRoot string) {
	for _, ref := range ParseImports(f.Content) {
		path, ok := r.resolve(ref.target, filepath.Dir(f.Path))
		if !ok {
			if looksLikeFile(ref.target) {
				r.diag(f.Path, ref.line, fmt.Errorf("%w: @%s", ErrImportNotFound, ref.target))
			}
			continue
		}
		real := realPath(path)
		if i := indexOf(stack, real); i >= 0 {
			chain := make([]string, 0, len(stack)-i+1)
			for _, p := range append(stack[i:], real) {
				chain = append(chain, r.display(p))
			}
			r.diag(f.Path, ref.line, fmt.Errorf("%w: %s", ErrImportCycle, strings.Join(chain, " -> ")))
			continue
		}
		if f.Depth+1 > r.opts.MaxImportDepth {
			r.diag(f.Path, ref.line, fmt.Errorf("%w: @%s is %d hops deep (limit %d)",
				ErrImportDepth, ref.target, f.Depth+1, r.opts.MaxImportDepth))
			continue
		}
		if !r.importAllowed(real, chainRoot) {
			r.diag(f.Path, ref.line, fmt.Errorf("%w: @%s", ErrImportOutside, ref.target))
			continue
		}
		if r.loaded[real] {
			continue // already in the prompt (a diamond, or a discovered file)
		}
		if r.denied(real) {
			continue
		}
		content, ok := r.read(path, true)
		if !ok {
			continue
		}
		r.loaded[real] = true
		child := File{Path: path, Display: r.display(path), Kind: KindImport, Content: content,
			ImportedBy: f.Path, Depth: f.Depth + 1, Family: f.Family}
		r.files = append(r.files, child)
		r.expand(child, append(stack[:len(stack):len(stack)], real), chainRoot)
	}
}

// resolve turns an @target into an existing file path, trying the token without
// trailing punctuation when the token itself names nothing.
func (r *reader) resolve(target, baseDir string) (string, bool) {
	for _, t := range []string{target, strings.TrimRight(target, trailingPunct)} {
		p := t
		switch {
		case t == "" || t == "~":
			continue
		case strings.HasPrefix(t, "~/"):
			if r.opts.Home == "" {
				continue
			}
			p = filepath.Join(r.opts.Home, t[2:])
		case !filepath.IsAbs(t):
			p = filepath.Join(baseDir, t)
		}
		if isRegular(p) {
			return filepath.Clean(p), true
		}
	}
	return "", false
}

// importAllowed: inside the project, the chain's own directory, an extra root, or a
// Markdown file in the user's ~/.claude or ~/.robota.
func (r *reader) importAllowed(real, chainRoot string) bool {
	if _, ok := within(real, chainRoot); ok {
		return true
	}
	for _, root := range r.roots {
		if _, ok := within(real, root); ok {
			return true
		}
	}
	if h := r.opts.Home; h != "" && strings.EqualFold(filepath.Ext(real), ".md") {
		for _, d := range []string{".claude", ".robota"} {
			if _, ok := within(real, realPath(filepath.Join(h, d))); ok {
				return true
			}
		}
	}
	return false
}

func looksLikeFile(t string) bool {
	t = strings.TrimRight(t, trailingPunct)
	return strings.Contains(t, "/") || filepath.Ext(t) != ""
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

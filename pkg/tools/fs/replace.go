package fs

import (
	"errors"
	"strings"
)

var (
	errNoMatch    = errors.New("old_string not found")
	errAmbiguous  = errors.New("old_string matches more than once")
	errNoChange   = errors.New("old_string equals new_string")
	errEmptyMatch = errors.New("old_string is empty")
)

// replacement is the outcome of matching old_string in a file's content.
type replacement struct {
	content   string // the new content
	count     int    // occurrences replaced
	matches   int    // occurrences found (when ambiguous)
	startLine int    // 1-based line of the first change
	crlf      bool   // matched after translating \n to \r\n
}

// replace applies one Edit to content. It never returns a partial change: on any error the
// caller writes nothing. When old has no exact match but the file uses CRLF line endings and
// old is written with bare \n (as models do), old and new are translated to CRLF and tried
// again.
func replace(content, old, new string, all bool) (replacement, error) {
	if old == new {
		return replacement{}, errNoChange
	}
	if old == "" {
		return replacement{}, errEmptyMatch
	}
	r, err := replaceExact(content, old, new, all)
	if errors.Is(err, errNoMatch) && strings.Contains(content, "\r\n") && strings.Contains(old, "\n") && !strings.Contains(old, "\r") {
		r2, err2 := replaceExact(content, toCRLF(old), toCRLF(new), all)
		if err2 == nil || !errors.Is(err2, errNoMatch) {
			r2.crlf = true
			return r2, err2
		}
	}
	return r, err
}

func replaceExact(content, old, new string, all bool) (replacement, error) {
	first := strings.Index(content, old)
	if first < 0 {
		return replacement{}, errNoMatch
	}
	n := strings.Count(content, old)
	if n > 1 && !all {
		return replacement{matches: n}, errAmbiguous
	}
	limit := 1
	if all {
		limit = -1
	}
	return replacement{
		content:   strings.Replace(content, old, new, limit),
		count:     n,
		matches:   n,
		startLine: 1 + strings.Count(content[:first], "\n"),
	}, nil
}

func toCRLF(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}

// Package tooloutput owns what the tools and the session's result cap share about tool
// output too long for a tool result: the marker that replaces the cut characters (saying
// how many, and where the whole text was saved), rune-safe cuts, and the files the whole
// text is saved in. It imports only the standard library, like package llm, so both
// pkg/tools and pkg/engine/session may use it.
//
// Guarantees: cuts never split a rune; a saved file is new (0600, in a 0700 directory),
// never overwrites an earlier output, and its name cannot leave its directory whatever
// the call id a model or provider chose.
package tooloutput

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Marker is the text that replaces cut characters.
func Marker(cut int) string {
	return fmt.Sprintf("\n\n... [%d characters truncated] ...\n\n", cut)
}

// TruncationMarker is Marker for output whose whole text was saved to path (so the model
// can Read the part that was cut), or could not be saved (saveErr says why).
func TruncationMarker(cut int, path string, saveErr error) string {
	switch {
	case path != "":
		return fmt.Sprintf("\n\n... [%d characters truncated. The full output is saved in %s; Read it with offset and limit to see the truncated part.] ...\n\n", cut, path)
	case saveErr != nil:
		return fmt.Sprintf("\n\n... [%d characters truncated; the full output could not be saved: %v] ...\n\n", cut, saveErr)
	}
	return Marker(cut)
}

// PrefixRunes returns the first n runes of s.
func PrefixRunes(s string, n int) string {
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

// SuffixRunes returns the last n runes of s.
func SuffixRunes(s string, n int) string {
	i := len(s)
	for k := 0; k < n && i > 0; k++ {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	return s[i:]
}

// FileNamePart keeps the ASCII letters, digits, '-' and '_' of s (at most 64), so an id
// chosen by a model or a provider can name a file without escaping its directory.
func FileNamePart(s string) string {
	var b strings.Builder
	for _, r := range s {
		if b.Len() >= 64 {
			break
		}
		if r == '-' || r == '_' || r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "call"
	}
	return b.String()
}

// CreateFile creates dir (0700) and a new file base.txt in it (0600), or base-2.txt,
// base-3.txt … when that exists (a provider may reuse a call id), so the name is
// predictable and never overwrites an earlier output.
func CreateFile(dir, base string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	for i := 1; i <= 100; i++ {
		name := base + ".txt"
		if i > 1 {
			name = fmt.Sprintf("%s-%d.txt", base, i)
		}
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return os.CreateTemp(dir, base+"-*.txt")
}

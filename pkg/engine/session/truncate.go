package session

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// DefaultMaxToolResultChars bounds the text of one tool result (characters), like Claude
// Code's 30,000-character tool output cap.
const DefaultMaxToolResultChars = 30_000

// resultSaver writes the whole text of a result that is about to be truncated to a file
// the model can Read, and returns its path.
type resultSaver func(tool, toolUseID, text string) (string, error)

// saveToDir returns the resultSaver that writes to files in dir (created on first use);
// nil when dir is empty.
func saveToDir(dir string) resultSaver {
	if dir == "" {
		return nil
	}
	return func(tool, id, text string) (string, error) {
		f, err := createOutputFile(dir, strings.ToLower(fileNamePart(tool))+"-"+fileNamePart(id))
		if err != nil {
			return "", err
		}
		_, err = f.WriteString(text)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			_ = os.Remove(f.Name())
			return "", err
		}
		return f.Name(), nil
	}
}

// truncateResult bounds r.Output and r.Error to limit characters each, keeping the head
// and the tail (where errors and summaries usually are) around a marker that says how many
// characters were cut and where the whole text was saved.
func truncateResult(r llm.ToolResult, limit int, save resultSaver, tool, id string) llm.ToolResult {
	out, cutOut, pathOut := truncateText(r.Output, limit, save, tool, id)
	errText, cutErr, pathErr := truncateText(r.Error, limit, save, tool, id)
	if cutOut == 0 && cutErr == 0 {
		return r
	}
	r.Output, r.Error = out, errText
	r.Metadata = maps.Clone(r.Metadata)
	if r.Metadata == nil {
		r.Metadata = map[string]any{}
	}
	r.Metadata["truncated"] = true
	r.Metadata["truncatedChars"] = cutOut + cutErr
	if p := firstNonEmpty(pathOut, pathErr); p != "" {
		r.Metadata["fullOutputPath"] = p
	}
	return r
}

// truncateText returns s cut to at most limit characters (head + marker + tail, whole
// runes), the number of characters removed and the file the whole text was saved in.
func truncateText(s string, limit int, save resultSaver, tool, id string) (string, int, string) {
	if limit <= 0 || len(s) <= limit {
		return s, 0, ""
	}
	n := utf8.RuneCountInString(s)
	if n <= limit {
		return s, 0, ""
	}
	var path string
	var saveErr error
	if save != nil {
		path, saveErr = save(tool, id, s)
	}
	// Sized for the largest count it could state, the marker never pushes the text over.
	budget := max(0, limit-utf8.RuneCountInString(truncationMarker(n, path, saveErr)))
	head := prefixRunes(s, budget/2)
	tail := suffixRunes(s, budget-budget/2)
	cut := n - budget
	return head + truncationMarker(cut, path, saveErr) + tail, cut, path
}

// truncationMarker replaces the cut characters.
func truncationMarker(cut int, path string, saveErr error) string {
	switch {
	case path != "":
		return fmt.Sprintf("\n\n... [%d characters truncated. The full output is saved in %s; Read it with offset and limit to see the truncated part.] ...\n\n", cut, path)
	case saveErr != nil:
		return fmt.Sprintf("\n\n... [%d characters truncated; the full output could not be saved: %v] ...\n\n", cut, saveErr)
	}
	return fmt.Sprintf("\n\n... [%d characters truncated] ...\n\n", cut)
}

func prefixRunes(s string, n int) string {
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

func suffixRunes(s string, n int) string {
	i := len(s)
	for k := 0; k < n && i > 0; k++ {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	return s[i:]
}

// createOutputFile creates dir (0700) and a new file base.txt in it (0600), or base-2.txt,
// base-3.txt … when that exists (a provider may reuse a call id): the name is predictable
// and never overwrites an earlier output.
func createOutputFile(dir, base string) (*os.File, error) {
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

// fileNamePart keeps the ASCII letters, digits, '-' and '_' of s (at most 64), so a name
// chosen by a model or a provider cannot leave the output directory.
func fileNamePart(s string) string {
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

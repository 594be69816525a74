package toolkit

import (
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/tools/record"
	"github.com/robota-sdk/robota-go/pkg/tools/workspace"
)

// ErrorCodeKey is the metadata key of a failed result's machine-readable reason, the same
// key the typed-tool helper uses.
const ErrorCodeKey = "errorCode"

// Error codes shared by the built-in tools.
const (
	CodeInvalidPath      = "invalid_path"
	CodeOutsideWorkspace = "outside_workspace"
	CodeNotFound         = "not_found"
	CodeIsDirectory      = "is_directory"
	CodeNotDirectory     = "not_directory"
	CodeNotRegular       = "not_regular_file"
	CodeBinary           = "binary_file"
	CodeIO               = "io_error"
	CodeInvalidArgument  = "invalid_argument"
	CodeNotAvailable     = "not_available"
	CodeAborted          = "aborted"
)

// Success builds a successful result carrying rec (and extra metadata, which may be nil).
func Success(rec record.Call, output string, meta map[string]any) llm.ToolResult {
	return llm.ToolResult{Success: true, Output: output, Metadata: rec.Annotate(meta)}
}

// Failure builds a failed result carrying rec and an error code.
func Failure(rec record.Call, code, message string, meta map[string]any) llm.ToolResult {
	meta = rec.Annotate(meta)
	meta[ErrorCodeKey] = code
	return llm.ToolResult{Success: false, Error: message, Metadata: meta}
}

// PathFailure turns a workspace.Resolve error into a failed result.
func PathFailure(rec record.Call, err error) llm.ToolResult {
	code := CodeInvalidPath
	if errors.Is(err, workspace.ErrOutsideWorkspace) {
		code = CodeOutsideWorkspace
	}
	return Failure(rec, code, err.Error(), nil)
}

// Min, Max set numeric bounds on a property of an object schema.
func Min(s *jsonschema.Schema, prop string, v float64) {
	if p := s.Properties[prop]; p != nil {
		p.Minimum = &v
	}
}

func Max(s *jsonschema.Schema, prop string, v float64) {
	if p := s.Properties[prop]; p != nil {
		p.Maximum = &v
	}
}

// Enum restricts a string property to values.
func Enum(s *jsonschema.Schema, prop string, values ...string) {
	if p := s.Properties[prop]; p != nil {
		p.Enum = nil
		for _, v := range values {
			p.Enum = append(p.Enum, v)
		}
	}
}

// TruncateMiddle keeps the first and last half of max runes of s and replaces the middle
// with a marker saying how many characters were cut. It returns s unchanged when it fits.
func TruncateMiddle(s string, max int) (string, bool) {
	n := utf8.RuneCountInString(s)
	if n <= max {
		return s, false
	}
	headRunes := max / 2
	tailRunes := max - headRunes
	head := prefixRunes(s, headRunes)
	tail := suffixRunes(s, tailRunes)
	return head + Marker(n-headRunes-tailRunes) + tail, true
}

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

// TruncateLine shortens a single line to max runes, saying how much was cut.
func TruncateLine(line string, max int) string {
	n := utf8.RuneCountInString(line)
	if n <= max {
		return line
	}
	return prefixRunes(line, max) + fmt.Sprintf("... [%d characters truncated]", n-max)
}

// TruncatePrefix is TruncateLine for a line of which only prefix was read and dropped more
// characters were not: it keeps at most max runes of prefix and counts the rest as cut.
func TruncatePrefix(prefix string, dropped, max int) string {
	if dropped <= 0 {
		return TruncateLine(prefix, max)
	}
	keep := prefixRunes(prefix, max)
	cut := utf8.RuneCountInString(prefix) - utf8.RuneCountInString(keep) + dropped
	return keep + fmt.Sprintf("... [%d characters truncated]", cut)
}

// FileNamePart keeps the letters, digits, '-' and '_' of s (at most 64), so an id chosen
// by a model or a provider can name a file without escaping its directory.
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

// CreateOutputFile creates dir (0700) and a new file base.txt in it (0600), or base-2.txt,
// base-3.txt … when that exists (a provider may reuse a call id), so the name is
// predictable and never overwrites an earlier output.
func CreateOutputFile(dir, base string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	for i := 1; i <= 100; i++ {
		name := base + ".txt"
		if i > 1 {
			name = fmt.Sprintf("%s-%d.txt", base, i)
		}
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if !errors.Is(err, iofs.ErrExist) {
			return f, err
		}
	}
	return os.CreateTemp(dir, base+"-*.txt")
}

// Plural returns "1 line" / "2 lines".
func Plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Quote shortens s for use inside an error message.
func Quote(s string, max int) string {
	return strings.TrimSpace(TruncateLine(s, max))
}

package toolkit

import (
	"errors"
	"fmt"
	"github.com/robota-sdk/robota-go/pkg/engine/llm/tooloutput"
	"strings"
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
	head := tooloutput.PrefixRunes(s, headRunes)
	tail := tooloutput.SuffixRunes(s, tailRunes)
	return head + tooloutput.Marker(n-headRunes-tailRunes) + tail, true
}

// TruncateLine shortens a single line to max runes, saying how much was cut.
func TruncateLine(line string, max int) string {
	n := utf8.RuneCountInString(line)
	if n <= max {
		return line
	}
	return tooloutput.PrefixRunes(line, max) + fmt.Sprintf("... [%d characters truncated]", n-max)
}

// TruncatePrefix is TruncateLine for a line of which only prefix was read and dropped more
// characters were not: it keeps at most max runes of prefix and counts the rest as cut.
func TruncatePrefix(prefix string, dropped, max int) string {
	if dropped <= 0 {
		return TruncateLine(prefix, max)
	}
	keep := tooloutput.PrefixRunes(prefix, max)
	cut := utf8.RuneCountInString(prefix) - utf8.RuneCountInString(keep) + dropped
	return keep + fmt.Sprintf("... [%d characters truncated]", cut)
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

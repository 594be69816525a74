package session

import (
	"github.com/robota-sdk/robota-go/pkg/engine/llm/tooloutput"
	"maps"
	"os"
	"strings"
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
		f, err := tooloutput.CreateFile(dir, strings.ToLower(tooloutput.FileNamePart(tool))+"-"+tooloutput.FileNamePart(id))
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
	budget := max(0, limit-utf8.RuneCountInString(tooloutput.TruncationMarker(n, path, saveErr)))
	head := tooloutput.PrefixRunes(s, budget/2)
	tail := tooloutput.SuffixRunes(s, budget-budget/2)
	cut := n - budget
	return head + tooloutput.TruncationMarker(cut, path, saveErr) + tail, cut, path
}

package interactive

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
)

// Bounds of what a ToolState carries for display (the whole result stays in history).
const (
	maxFirstArgChars   = 200
	maxDiffLines       = 200
	maxDiffLineChars   = 500
	maxPreviewLines    = 20
	maxPreviewChars    = 2000
	commandPreviewTool = "Bash"
)

// firstArgKey names, per tool, the argument that identifies a call; other tools (ok
// false) show their first string argument.
func firstArgKey(tool string) (key string, ok bool) {
	switch tool {
	case "Bash":
		return "command", true
	case "Read", "Write", "Edit", "MultiEdit":
		return "file_path", true
	case "NotebookEdit":
		return "notebook_path", true
	case "Glob", "Grep":
		return "pattern", true
	case "LS":
		return "path", true
	case "WebFetch":
		return "url", true
	case "WebSearch":
		return "query", true
	case "Agent", "Task":
		return "description", true
	case "Skill":
		return "skill", true
	}
	return "", false
}

// toolState renders a session tool event for clients.
func toolState(ev session.ToolExecutionEvent) *ToolState {
	st := &ToolState{ToolUseID: ev.ToolUseID, ToolName: ev.ToolName, Args: ev.ToolArgs,
		FirstArg: firstArg(ev.ToolName, ev.ToolArgs), IsRunning: ev.Type == session.ToolStart, Message: ev.Message}
	if ev.Type == session.ToolStart {
		return st
	}
	switch {
	case ev.Denied:
		st.Result = "denied"
	case ev.Success:
		st.Result = "success"
	default:
		st.Result = "error"
	}
	st.ErrorCode, st.Reason = ev.ErrorCode, ev.Reason
	var res llm.ToolResult
	_ = json.Unmarshal([]byte(ev.ToolResultData), &res) // empty when the tool never reported one
	if ev.ToolName == "Edit" && ev.Success {
		st.DiffFile, st.DiffLines = editDiff(ev.ToolArgs, res)
	}
	if ev.ToolName == commandPreviewTool {
		st.ToolResultData = preview(res.ModelContent())
	}
	return st
}

// FirstArg is the identifying argument of a call (a file path, a command, a pattern),
// on one line and bounded.
func FirstArg(tool string, args json.RawMessage) string { return firstArg(tool, args) }

func firstArg(tool string, args json.RawMessage) string {
	var v string
	if key, ok := firstArgKey(tool); ok {
		var m map[string]any
		if json.Unmarshal(args, &m) == nil {
			v, _ = m[key].(string)
		}
	}
	if v == "" {
		v = firstStringField(args)
	}
	v = strings.Join(strings.Fields(v), " ")
	return truncateRunes(v, maxFirstArgChars)
}

// firstStringField returns the first string member of a JSON object, in the order the
// model wrote it.
func firstStringField(args json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(args))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return ""
	}
	for dec.More() {
		if _, err := dec.Token(); err != nil { // the key
			return ""
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return ""
		}
		if s, ok := v.(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// editDiff derives an Edit's diff from its arguments and the result's startLine.
func editDiff(args json.RawMessage, res llm.ToolResult) (string, []DiffLine) {
	var in struct {
		FilePath  string `json:"file_path"`
		OldString string `json:"old_string"`
		NewString string `json:"new_string"`
	}
	if json.Unmarshal(args, &in) != nil {
		return "", nil
	}
	start := 1
	if v, ok := res.Metadata["startLine"].(float64); ok && v >= 1 {
		start = int(v)
	}
	var lines []DiffLine
	put := func(kind string, line int, text string) {
		if len(lines) < maxDiffLines {
			lines = append(lines, DiffLine{Kind: kind, Line: line, Text: truncateRunes(text, maxDiffLineChars)})
		}
	}
	removed, added := splitLines(in.OldString), splitLines(in.NewString)
	before, after := contextAround(in.FilePath, start, len(added))
	first := start - len(before)
	put("hunk", first, fmt.Sprintf("@@ -%d,%d +%d,%d @@", first, len(before)+len(removed)+len(after),
		first, len(before)+len(added)+len(after)))
	for i, l := range before {
		put("context", first+i, l)
	}
	for i, l := range removed {
		put("remove", start+i, l)
	}
	for i, l := range added {
		put("add", start+i, l)
	}
	for i, l := range after {
		put("context", start+len(added)+i, l)
	}
	return in.FilePath, lines
}

// diffContextLines is how many unchanged lines a diff shows around a change.
const diffContextLines = 3

// diffContextMaxFile bounds the file an edit's context lines are read from.
const diffContextMaxFile = 1 << 20

// contextAround reads the edited file (as the edit left it) for the unchanged lines
// before line start and after the added lines; none when it cannot be read.
func contextAround(path string, start, added int) (before, after []string) {
	if path == "" {
		return nil, nil
	}
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > diffContextMaxFile {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil || !utf8.Valid(b) {
		return nil, nil
	}
	file := splitLines(string(b))
	from := max(start-1-diffContextLines, 0)
	if start-1 <= len(file) {
		before = file[from : start-1]
	}
	if end := start - 1 + added; end < len(file) {
		after = file[end:min(end+diffContextLines, len(file))]
	}
	return before, after
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// preview keeps the first lines of a command's output, saying what was left out.
func preview(out string) string {
	lines := splitLines(out)
	keep := lines
	if len(keep) > maxPreviewLines {
		keep = keep[:maxPreviewLines]
	}
	text := truncateRunes(strings.Join(keep, "\n"), maxPreviewChars)
	if omitted := len(lines) - len(keep); omitted > 0 {
		text += fmt.Sprintf("\n… %d more lines", omitted)
	} else if utf8.RuneCountInString(strings.Join(keep, "\n")) > maxPreviewChars {
		text += "\n… (cut)"
	}
	return text
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

package session

import (
	"fmt"
	"maps"
	"unicode/utf8"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// DefaultMaxToolResultChars bounds the text of one tool result (bytes), like Claude Code's
// 30,000-character tool output cap.
const DefaultMaxToolResultChars = 30_000

// truncateResult bounds r.Output and r.Error to limit bytes each, keeping the head and the
// tail (where errors and summaries usually are) around a marker that says how much was cut.
func truncateResult(r llm.ToolResult, limit int) llm.ToolResult {
	out, cutOut := truncateText(r.Output, limit)
	errText, cutErr := truncateText(r.Error, limit)
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
	return r
}

// truncateText returns s cut to at most about limit bytes (head + marker + tail, split on
// UTF-8 boundaries) and the number of bytes removed.
func truncateText(s string, limit int) (string, int) {
	if limit <= 0 || len(s) <= limit {
		return s, 0
	}
	headEnd := runeStart(s, limit/2)
	tailStart := runeStart(s, len(s)-(limit-limit/2))
	if tailStart < headEnd {
		tailStart = headEnd
	}
	cut := tailStart - headEnd
	return s[:headEnd] + fmt.Sprintf("\n\n... [%d characters truncated] ...\n\n", cut) + s[tailStart:], cut
}

// runeStart moves i back to the start of the rune it falls in.
func runeStart(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

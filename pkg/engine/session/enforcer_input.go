package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/robota-sdk/robota-go/pkg/engine/llm/tooloutput"
	"unicode/utf8"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

const (
	// InvalidInputPrefix starts the tool result of a call whose arguments are not one JSON
	// object: the model sent text nobody could parse, so nothing was decided or run.
	InvalidInputPrefix = "Error: the tool input could not be parsed"
	// ErrorCodeInvalidInput is its error code.
	ErrorCodeInvalidInput = "invalid_tool_input"
	// maxRawInputChars bounds the raw text quoted back to the model.
	maxRawInputChars = 1000
)

// unparsableInput returns the failed result for arguments that are not one JSON object, or
// false when they are one. Providers hand over streamed arguments that do not parse as a
// JSON string holding the raw text; that text is what the model is shown.
func unparsableInput(tool string, args json.RawMessage) (llm.ToolResult, bool) {
	trimmed := bytes.TrimSpace(normalizeArgs(args))
	if trimmed[0] == '{' {
		return llm.ToolResult{}, false
	}
	raw := string(args)
	var s string
	if json.Unmarshal(trimmed, &s) == nil {
		raw = s
	}
	what := "it is not a JSON object"
	if trimmed[0] == '"' {
		what = "it is not valid JSON"
	}
	shown := raw
	if n := utf8.RuneCountInString(raw); n > maxRawInputChars {
		shown = tooloutput.PrefixRunes(raw, maxRawInputChars) + fmt.Sprintf("… [%d more characters]", n-maxRawInputChars)
	}
	msg := fmt.Sprintf("%s (%s), so %s did not run. Send the arguments as one JSON object matching the tool's input schema.\nInput received: %s",
		InvalidInputPrefix, what, tool, shown)
	return llm.ToolResult{Error: msg, Metadata: map[string]any{"errorCode": ErrorCodeInvalidInput}}, true
}

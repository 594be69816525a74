package transport

import (
	"encoding/json"
	"strings"
)

// ToolInput turns streamed tool-call argument text into JSON: empty means {},
// and text that is not JSON (a cut or malformed stream) is kept as a JSON
// string, so the tool reports the problem to the model instead of the call
// vanishing.
func ToolInput(s string) json.RawMessage {
	s = strings.TrimSpace(s)
	if s == "" {
		return json.RawMessage(`{}`)
	}
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}

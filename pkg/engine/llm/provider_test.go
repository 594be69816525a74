package llm

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestCallbacksServerToolUse(t *testing.T) {
	use := ServerToolUse{ID: "srvtoolu_1", Name: "web_search", Input: json.RawMessage(`{"query":"go 1.26"}`)}
	Callbacks{}.ServerToolUse(use) // unset: nothing to call, must not panic

	var got []ServerToolUse
	Callbacks{OnServerToolUse: func(u ServerToolUse) { got = append(got, u) }}.ServerToolUse(use)
	if !reflect.DeepEqual(got, []ServerToolUse{use}) {
		t.Fatalf("reported %+v, want %+v", got, use)
	}
}

package session_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
)

// Issue 10 §5: arguments that are not one JSON object get a result saying the input could
// not be parsed, with the raw text (bounded). No permission message, no denial, no hook,
// no tool run: there was nothing to decide.
func TestPermissionEnforcer_UnparsableInput(t *testing.T) {
	long := `{"command": "` + strings.Repeat("y", 5000)
	quotedLong, _ := json.Marshal(long)
	tests := []struct {
		name     string
		args     string
		wantRaw  string // in the result
		notInRaw string // must not be in the result
	}{
		{"provider-wrapped broken JSON", `"{\"file_path\": \"a.go\", \"old_"`, `Input received: {"file_path": "a.go", "old_`, ""},
		{"raw broken JSON", `{"file_path": "a.go",`, `Input received: {"file_path": "a.go",`, ""},
		{"an array", `[1, 2]`, "Input received: [1, 2]", ""},
		{"a number", `42`, "Input received: 42", ""},
		{"long text is bounded", string(quotedLong), "… [4013 more characters]", strings.Repeat("y", 1000)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := &trace{}
			tool := &funcTool{name: "Edit", tr: tr}
			events := &toolEvents{}
			hooks := &fakeHooks{tr: tr}
			e := session.NewPermissionEnforcer(session.EnforcerConfig{
				Evaluator: &fakeEvaluator{tr: tr, fn: decide(session.BehaviorAsk, false)},
				Hooks:     hooks, Report: events.add,
			})
			res := execute(e.Wrap([]llm.Tool{tool})[0], "toolu_1", tc.args)
			if res.Success || !strings.HasPrefix(res.Error, session.InvalidInputPrefix) || !strings.Contains(res.Error, tc.wantRaw) {
				t.Fatalf("result = %+v", res)
			}
			if tc.notInRaw != "" && strings.Contains(res.Error, tc.notInRaw) {
				t.Fatalf("raw input not bounded: %d bytes", len(res.Error))
			}
			if strings.Contains(res.Error, session.PermissionDeniedPrefix) || res.Metadata["errorCode"] != session.ErrorCodeInvalidInput {
				t.Fatalf("result = %+v", res)
			}
			if steps := tr.get(); len(steps) != 0 {
				t.Fatalf("steps %v: nothing may be evaluated, hooked or run", steps)
			}
			if d := e.Denials(); len(d) != 0 {
				t.Fatalf("counted as permission denials: %+v", d)
			}
			evs := events.get()
			if len(evs) != 2 || evs[1].Denied || evs[1].ErrorCode != session.ErrorCodeInvalidInput || !json.Valid(evs[1].ToolArgs) {
				t.Fatalf("events %+v", evs)
			}
		})
	}
}

// Absent arguments are an empty object, as before: the call goes through the pipeline.
func TestPermissionEnforcer_EmptyInputIsAnEmptyObject(t *testing.T) {
	for _, args := range []string{"", "null", " "} {
		tool := &funcTool{name: "Glob"}
		e := session.NewPermissionEnforcer(session.EnforcerConfig{Evaluator: allowAll()})
		if res := execute(e.Wrap([]llm.Tool{tool})[0], "t", args); !res.Success || tool.count() != 1 {
			t.Fatalf("args %q: result %+v, tool ran %d times", args, res, tool.count())
		}
	}
}

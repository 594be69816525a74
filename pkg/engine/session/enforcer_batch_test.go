package session_test

import (
	"encoding/json"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
)

// readOnlyTool declares itself concurrency-safe.
type readOnlyTool struct{ funcTool }

func (*readOnlyTool) ConcurrencySafe(json.RawMessage) bool { return true }

// Issue 10 §1: the enforcer's wrapper keeps the wrapped tool's concurrency class, so
// read-only tools still run at once behind it and every other tool still runs alone.
func TestPermissionEnforcer_WrapKeepsConcurrencySafety(t *testing.T) {
	e := session.NewPermissionEnforcer(session.EnforcerConfig{Evaluator: allowAll()})
	wrapped := e.Wrap([]llm.Tool{&readOnlyTool{funcTool{name: "Read"}}, &funcTool{name: "Edit"}})
	safe := func(tool llm.Tool) bool {
		cs, ok := tool.(agent.ConcurrencySafe)
		return ok && cs.ConcurrencySafe(json.RawMessage(`{}`))
	}
	if !safe(wrapped[0]) {
		t.Error("a wrapped read-only tool lost its concurrency safety")
	}
	if safe(wrapped[1]) {
		t.Error("a wrapped mutating tool became concurrency-safe")
	}
}

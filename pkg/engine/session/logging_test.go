package session_test

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
)

// A run with a tool call logs every event of the spec's Session Logging list that the
// runtime produces (server_tool needs a provider-hosted tool), with replay identifiers.
func TestLogger_RunLogsSpecEvents(t *testing.T) {
	p := newProvider(t, `
turns:
  - chunks: ["Let me ", "look."]
    toolCalls: [{id: call_0, name: Read, input: {file_path: a.go}}]
  - text: "Done."
`)
	lg := &recLogger{t: t}
	s := newSession(t, session.Config{Provider: p, Logger: lg, Evaluator: allowAll(), Model: "claude-haiku-4-5",
		Tools: []llm.Tool{&funcTool{name: "Read"}}})
	mustRun(t, s, "read a.go")
	if err := s.Shutdown(context.Background(), "other"); err != nil {
		t.Fatal(err)
	}
	for _, ev := range []string{
		"session_init", "pre_run", "provider_request", "provider_native_raw_payload", "provider_stream_raw_delta",
		"provider_response_raw", "provider_response_normalized", "tool_batch_started", "tool_execution_request",
		"tool_execution_result", "tool_message_committed", "history_mutation", "text_delta", "assistant", "session_shutdown",
	} {
		if len(lg.of(ev)) == 0 {
			t.Errorf("no %s event logged", ev)
		}
	}
	init := lg.of("session_init")[0].data
	if init["systemPrompt"] != testSystem || init["model"] != "claude-haiku-4-5" || init["provider"] != "script" {
		t.Fatalf("session_init %v", init)
	}
	if tools, _ := init["toolSchemas"].([]any); len(tools) != 1 {
		t.Fatalf("session_init toolSchemas %v", init["toolSchemas"])
	}
	req := lg.of("provider_request")[0].data
	if req["executionId"] == "" || req["round"] != 1.0 || req["conversationId"] != s.ID() {
		t.Fatalf("provider_request identifiers %v", req)
	}
	pre := lg.of("pre_run")[0].data
	if pre["input"] != "read a.go" || pre["provider"] != "script" || pre["historyLength"] != 1.0 {
		t.Fatalf("pre_run %v", pre)
	}
	var streamed string
	for _, e := range lg.of("text_delta") {
		streamed += e.data["delta"].(string)
	}
	if streamed != "Let me look.\n\nDone." {
		t.Fatalf("text_delta events spell %q", streamed)
	}
	asst := lg.of("assistant")[0].data
	// The system message was there before the run: the run added the other four.
	if asst["content"] != "Done." || asst["historyLength"] != 5.0 || asst["historyFrom"] != 1.0 || len(asst["historyStructure"].([]any)) != 4 {
		t.Fatalf("assistant event %v", asst)
	}
	if sd := lg.of("session_shutdown"); len(sd) != 1 || sd[0].data["reason"] != "other" {
		t.Fatalf("session_shutdown %v", sd)
	}
}

// hostedToolProvider reports hosted tool use mid-stream, one list per call, then answers
// through the wrapped provider.
type hostedToolProvider struct {
	inner llm.Provider
	mu    sync.Mutex
	calls int
	uses  [][]llm.ServerToolUse
}

func (p *hostedToolProvider) Name() string { return p.inner.Name() }

func (p *hostedToolProvider) Chat(ctx context.Context, req llm.ChatRequest, cb llm.Callbacks) (llm.ChatResponse, error) {
	p.mu.Lock()
	var uses []llm.ServerToolUse
	if p.calls < len(p.uses) {
		uses = p.uses[p.calls]
	}
	p.calls++
	p.mu.Unlock()
	for _, u := range uses {
		cb.ServerToolUse(u)
	}
	return p.inner.Chat(ctx, req, cb)
}

// Spec: Session Logging, server_tool — the provider's hosted tool use is logged with the
// tool name and query, placed in its run and round.
func TestLogger_ServerToolUseLogged(t *testing.T) {
	p := &hostedToolProvider{inner: newProvider(t, `
turns:
  - toolCalls: [{id: call_0, name: Read, input: {file_path: a.go}}]
  - text: "Done."
`), uses: [][]llm.ServerToolUse{
		{{ID: "srvtoolu_1", Name: "web_search", Input: json.RawMessage(`{"query": "go 1.26 release notes"}`)}},
		{
			{ID: "srvtoolu_2", Name: "web_fetch", Input: json.RawMessage(`{ "url": "https://go.dev/doc/go1.26" }`)},
			{ID: "srvtoolu_3", Name: "web_search"},                                             // no input
			{ID: "srvtoolu_4", Name: "web_search", Input: json.RawMessage(`{"query": "go 1.`)}, // a cut stream
		},
	}}
	lg := &recLogger{t: t}
	s := newSession(t, session.Config{Provider: p, Logger: lg, Evaluator: allowAll(),
		Tools: []llm.Tool{&funcTool{name: "Read"}}})
	mustRun(t, s, "what is new in go 1.26?")

	got := lg.of("server_tool")
	if len(got) != 4 {
		t.Fatalf("%d server_tool events, want 4: %v", len(got), got)
	}
	execID := lg.of("provider_request")[0].data["executionId"]
	if execID == nil || execID == "" {
		t.Fatal("provider_request has no executionId")
	}
	want := []map[string]any{
		{"name": "web_search", "query": "go 1.26 release notes", "input": map[string]any{"query": "go 1.26 release notes"},
			"toolUseId": "srvtoolu_1", "executionId": execID, "round": 1.0},
		{"name": "web_fetch", "query": `{"url":"https://go.dev/doc/go1.26"}`, "input": map[string]any{"url": "https://go.dev/doc/go1.26"},
			"toolUseId": "srvtoolu_2", "executionId": execID, "round": 2.0},
		{"name": "web_search", "query": "{}", "input": map[string]any{},
			"toolUseId": "srvtoolu_3", "executionId": execID, "round": 2.0},
		{"name": "web_search", "query": `{"query": "go 1.`, "input": `{"query": "go 1.`,
			"toolUseId": "srvtoolu_4", "executionId": execID, "round": 2.0},
	}
	for i, w := range want {
		if !reflect.DeepEqual(got[i].data, w) {
			t.Errorf("server_tool %d = %v, want %v", i, got[i].data, w)
		}
	}
}

// Through the real FileLogger: the server_tool line decodes as sessionlog.ServerToolData
// and sits between the call's request and its response, with the streamed text around it.
func TestLogger_ServerToolInSessionLogFile(t *testing.T) {
	p := &hostedToolProvider{inner: newProvider(t, `
turns:
  - chunks: ["Searching. ", "Go 1.26 ", "is out."]
`), uses: [][]llm.ServerToolUse{{{ID: "srvtoolu_1", Name: "web_search", Input: json.RawMessage(`{"query":"go 1.26"}`)}}}}
	dir := t.TempDir()
	var logErrs []error
	lg, err := sessionlog.Open(dir, "s1", sessionlog.Options{Now: fixedClock, OnError: func(_ string, err error) { logErrs = append(logErrs, err) }})
	if err != nil {
		t.Fatal(err)
	}
	s := newSession(t, session.Config{Provider: p, Logger: lg})
	mustRun(t, s, "what is new in go 1.26?")
	if err := lg.Close(); err != nil || len(logErrs) > 0 {
		t.Fatalf("close %v, log errors %v", err, logErrs)
	}
	c, err := sessionlog.ReadLogFile(lg.Path())
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	var got []sessionlog.ServerToolData
	for _, e := range c.Entries {
		events = append(events, e.Event)
		if e.Event == sessionlog.EventServerTool {
			var d sessionlog.ServerToolData
			if err := json.Unmarshal(e.Data, &d); err != nil {
				t.Fatal(err)
			}
			got = append(got, d)
		}
	}
	if len(got) != 1 || got[0].Name != "web_search" || got[0].Query != "go 1.26" || got[0].ToolUseID != "srvtoolu_1" ||
		got[0].ExecutionID == "" || got[0].Round != 1 || string(got[0].Input) != `{"query":"go 1.26"}` {
		t.Fatalf("server_tool data %+v", got)
	}
	at := slices.Index(events, sessionlog.EventServerTool)
	if req, resp := slices.Index(events, sessionlog.EventProviderRequest), slices.Index(events, sessionlog.EventProviderResponseRaw); req < 0 || !(req < at && at < resp) {
		t.Fatalf("event order %v: server_tool should come between provider_request and provider_response_raw", events)
	}
}

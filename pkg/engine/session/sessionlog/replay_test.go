package sessionlog_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
)

var factory = llm.Factory{NewID: func() string { return "id" }, Now: func() time.Time { return epoch }}

// The conversation agentRun produces, in history order.
var (
	userMsg       = withID(factory.User("find it"), "u1")
	assistantMsg1 = withID(factory.Assistant([]llm.Part{llm.TextPart("Let me look."),
		llm.ToolUsePart(llm.ToolCall{ID: "call_0", Name: "Echo", Input: json.RawMessage(`{"q":1}`)}),
		llm.ToolUsePart(llm.ToolCall{ID: "call_1", Name: "Echo", Input: json.RawMessage(`{"q":2}`)})}, ""), "a1")
	toolMsg0      = withID(factory.Tool(llm.ToolResultPart{ToolCallID: "call_0", ToolName: "Echo", Content: "one"}, nil), "t0")
	toolMsg1      = withID(factory.Tool(llm.ToolResultPart{ToolCallID: "call_1", ToolName: "Echo", Content: "two"}, nil), "t1")
	assistantMsg2 = withID(factory.Assistant([]llm.Part{llm.TextPart("Found it.")}, ""), "a2")
)

func withID(m llm.Message, id string) llm.Message { m.ID = id; return m }

// agentRun returns the replay events of a two-round agent run (tool calls call_0 and
// call_1 in round 1, the answer in round 2), in the agent's documented order, as real
// agent.Event values.
func agentRun() []agent.Event {
	var evs []agent.Event
	add := func(round int, e agent.Event) {
		e.ExecutionID, e.ConversationID, e.Round = "exec-1", "conv-1", round
		e.Sequence, e.Timestamp = int64(len(evs)+1), epoch
		evs = append(evs, e)
	}
	appendMsg := func(round, index int, m llm.Message) {
		add(round, agent.Event{Type: agent.EventHistoryMutation, Mutation: &agent.MutationData{Kind: "append", Index: index}, Message: &m})
	}
	tools := []llm.ToolSchema{{Name: "Echo"}}
	var base *agent.RequestBase // as the agent sets it: the previous request and its history
	providerRound := func(round int, history []llm.Message, answer llm.Message) {
		add(round, agent.Event{Type: agent.EventProviderRequest, Request: &agent.ProviderRequestData{
			Provider: "script", Model: "m", Messages: history, Tools: tools, Base: base}})
		base = &agent.RequestBase{ExecutionID: "exec-1", Round: round, Messages: len(history), Tools: true}
		add(round, agent.Event{Type: agent.EventProviderNativeRawPayload, RawPayload: &llm.RawPayloadEvent{
			Provider: "script", PayloadKind: llm.PayloadRequest, Payload: json.RawMessage(`{"turn":1}`)}})
		add(round, agent.Event{Type: agent.EventProviderStreamRawDelta, Delta: &agent.DeltaData{Sequence: 1, Delta: answer.Text()}})
		add(round, agent.Event{Type: agent.EventProviderNativeRawPayload, RawPayload: &llm.RawPayloadEvent{
			Provider: "script", PayloadKind: llm.PayloadResponse, Payload: json.RawMessage(`{"ok":true}`)}})
		resp := llm.ChatResponse{Message: answer, StopReason: "end_turn"}
		add(round, agent.Event{Type: agent.EventProviderResponseRaw, Response: &agent.ResponseData{Response: resp, ResponseKind: agent.ResponseKindNormalized}})
		add(round, agent.Event{Type: agent.EventProviderResponseNormalized, Response: &agent.ResponseData{Response: resp, ToolCallsCount: len(answer.ToolCalls())}})
		appendMsg(round, len(history), answer)
		add(round, agent.Event{Type: agent.EventAssistantMessageCommitted, Message: &answer})
	}
	appendMsg(0, 0, userMsg)
	providerRound(1, []llm.Message{userMsg}, assistantMsg1)
	add(1, agent.Event{Type: agent.EventToolBatchStarted, Batch: &agent.BatchData{BatchID: "b1", Mode: "parallel", RequestCount: 2, Tools: []string{"Echo", "Echo"}}})
	for i, c := range assistantMsg1.ToolCalls() {
		add(1, agent.Event{Type: agent.EventToolExecutionRequest, Tool: &agent.ToolEventData{BatchID: "b1", Index: i, ToolName: c.Name, ToolCallID: c.ID, Parameters: c.Input}})
	}
	for i, tm := range []llm.Message{toolMsg1, toolMsg0} { // completion order
		r, _ := tm.ToolResult()
		add(1, agent.Event{Type: agent.EventToolExecutionResult, Tool: &agent.ToolEventData{BatchID: "b1", Index: 1 - i, ToolName: "Echo", ToolCallID: r.ToolCallID,
			Result: &llm.ToolResult{Success: true, Output: r.Content}}})
	}
	for i, tm := range []llm.Message{toolMsg0, toolMsg1} {
		r, _ := tm.ToolResult()
		appendMsg(1, 2+i, tm)
		add(1, agent.Event{Type: agent.EventToolMessageCommitted, Tool: &agent.ToolEventData{BatchID: "b1", Index: i, ToolName: "Echo", ToolCallID: r.ToolCallID}, Message: &tm})
	}
	// Round 2 reuses the provider-owned ID call_0 in another round: keys include the round.
	providerRound(2, []llm.Message{userMsg, assistantMsg1, toolMsg0, toolMsg1}, assistantMsg2)
	return evs
}

// writeRun logs a session with the agent run and returns the log's entries.
func writeRun(t *testing.T, dir string, threshold int, mutate func([]agent.Event) []agent.Event) []sessionlog.Entry {
	t.Helper()
	l := openLogger(t, dir, "s1", threshold)
	mustLog(t, l, sessionlog.EventSessionInit, sessionlog.NewSessionInit("sys", "script", "m", "/work/p", nil))
	evs := agentRun()
	if mutate != nil {
		evs = mutate(evs)
	}
	for _, ev := range evs {
		mustLog(t, l, string(ev.Type), ev)
	}
	_ = l.Close()
	c := readAll(t, l.Path())
	if len(c.Skipped) != 0 {
		t.Fatalf("skipped: %+v", c.Skipped)
	}
	return c.Entries
}

func messageIDs(msgs []llm.Message) string {
	ids := make([]string, len(msgs))
	for i, m := range msgs {
		ids[i] = m.ID
	}
	return strings.Join(ids, ",")
}

func TestReplayRebuildsMessages(t *testing.T) {
	for _, threshold := range []int{0, 16} { // inline, and message content in payload files
		dir := t.TempDir()
		entries := writeRun(t, dir, threshold, nil)
		rec, err := sessionlog.ReplaySessionLogEntries(entries, sessionlog.DirPayloads(dir))
		if err != nil {
			t.Fatalf("threshold %d: %v", threshold, err)
		}
		want := []llm.Message{userMsg, assistantMsg1, toolMsg0, toolMsg1, assistantMsg2}
		if !reflect.DeepEqual(rec.Messages, want) {
			got, _ := json.Marshal(rec.Messages)
			t.Errorf("threshold %d: replayed messages\n%s", threshold, got)
		}
		// Round 2 was logged as a delta of round 1; both requests come back whole.
		wantRequests := [][]llm.Message{{userMsg}, want[:4]}
		if len(rec.Requests) != 2 {
			t.Fatalf("threshold %d: %d requests replayed", threshold, len(rec.Requests))
		}
		for i, r := range rec.Requests {
			if !reflect.DeepEqual(r.Messages, wantRequests[i]) || r.Round != i+1 || r.ExecutionID != "exec-1" ||
				len(r.Tools) != 1 || r.Tools[0].Name != "Echo" {
				got, _ := json.Marshal(r)
				t.Errorf("threshold %d: request %d replayed as %s", threshold, i+1, got)
			}
		}
		if rec.SessionID != "s1" || rec.Cwd != "/work/p" || !rec.CreatedAt.Equal(epoch) || !rec.UpdatedAt.After(rec.CreatedAt) {
			t.Errorf("threshold %d: record header %+v", threshold, rec)
		}
		if v := sessionlog.ValidateSessionReplayLogEntries(entries, sessionlog.DirPayloads(dir)); !v.OK {
			t.Errorf("threshold %d: a complete run does not validate: %+v", threshold, v.Issues)
		}
		if threshold > 0 {
			if _, err := sessionlog.ReplaySessionLogEntries(entries, nil); !errors.Is(err, sessionlog.ErrNoPayloadSource) {
				t.Errorf("replay of externalized messages without a source = %v", err)
			}
		}
	}
}

func TestReplayResetAndForeignShapes(t *testing.T) {
	line := func(seq int, event, data string) sessionlog.Entry {
		return sessionlog.Entry{SchemaVersion: 1, Sequence: int64(seq), Timestamp: epoch, SessionID: "s", Event: sessionlog.EventType(event), Data: json.RawMessage(data)}
	}
	entries := []sessionlog.Entry{
		line(1, "history_mutation", `{"mutation":"append_message","message":{"id":"old","role":"user","state":"complete","content":[]}}`),
		line(2, "history_mutation", `{"mutation":{"kind":"reset"},"messages":[{"id":"sys","role":"system","state":"complete","content":[]},{"id":"sum","role":"assistant","state":"complete","content":[]}]}`),
		line(3, "history_mutation", `{"mutation":{"kind":"append","index":2},"message":{"id":"next","role":"user","state":"complete","content":[]}}`),
		line(4, "background_task_event", `{"taskId":"t1","status":"done"}`),
		line(5, "memory_event", `{"type":"saved"}`),
		line(6, "background_job_group_event", `{"groupId":"g"}`),
	}
	rec, err := sessionlog.ReplaySessionLogEntries(entries, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := messageIDs(rec.Messages); got != "sys,sum,next" {
		t.Errorf("messages = %s", got)
	}
	if len(rec.BackgroundTaskEvents) != 1 || len(rec.MemoryEvents) != 1 || len(rec.BackgroundJobGroupEvents) != 1 {
		t.Errorf("auxiliary events: %+v", rec)
	}
	if v := sessionlog.ValidateSessionReplayLogEntries(entries, nil); !v.OK {
		t.Errorf("validation: %+v", v.Issues)
	}
	for _, bad := range []string{
		`{"mutation":{"kind":"append"}}`,
		`{"mutation":{"kind":"rewrite"}}`,
		`{"mutation":{"kind":"append"},"message":{"id":"x","role":"robot"}}`,
		`[1,2]`,
	} {
		if _, err := sessionlog.ReplaySessionLogEntries([]sessionlog.Entry{line(1, "history_mutation", bad)}, nil); !errors.Is(err, sessionlog.ErrReplay) {
			t.Errorf("replay of %s = %v, want ErrReplay", bad, err)
		}
	}
}

func dropEvents(pred func(agent.Event) bool) func([]agent.Event) []agent.Event {
	return func(evs []agent.Event) []agent.Event {
		var out []agent.Event
		for _, e := range evs {
			if !pred(e) {
				out = append(out, e)
			}
		}
		return out
	}
}

func TestValidateReportsMissingPairs(t *testing.T) {
	tests := []struct {
		name   string
		mutate func([]agent.Event) []agent.Event
		want   []string // code@round/toolCallId
	}{
		{"native response payload missing", dropEvents(func(e agent.Event) bool {
			return e.Type == agent.EventProviderNativeRawPayload && e.RawPayload.PayloadKind == llm.PayloadResponse && e.Round == 2
		}), []string{"PROVIDER_NATIVE_RAW_PAYLOAD_MISSING@2/"}},
		{"raw response missing", dropEvents(func(e agent.Event) bool {
			return e.Type == agent.EventProviderResponseRaw && e.Round == 1
		}), []string{"PROVIDER_RESPONSE_RAW_MISSING@1/"}},
		{"normalized response missing", dropEvents(func(e agent.Event) bool {
			return e.Type == agent.EventProviderResponseNormalized
		}), []string{"PROVIDER_RESPONSE_NORMALIZED_MISSING@1/", "PROVIDER_RESPONSE_NORMALIZED_MISSING@2/"}},
		{"tool result missing", dropEvents(func(e agent.Event) bool {
			return e.Type == agent.EventToolExecutionResult && e.Tool.ToolCallID == "call_1"
		}), []string{"TOOL_RESULT_MISSING@1/call_1"}},
		{"tool request missing", dropEvents(func(e agent.Event) bool {
			return e.Type == agent.EventToolExecutionRequest && e.Tool.ToolCallID == "call_0"
		}), []string{"TOOL_REQUEST_MISSING@1/call_0"}},
		{"history append lost", dropEvents(func(e agent.Event) bool {
			return e.Type == agent.EventHistoryMutation && e.Mutation.Index == 2
		}), []string{"HISTORY_INDEX_MISMATCH@0/"}},
		{"only a request (run killed mid-call)", func(evs []agent.Event) []agent.Event {
			return evs[:2]
		}, []string{"PROVIDER_NATIVE_RAW_PAYLOAD_MISSING@1/", "PROVIDER_RESPONSE_RAW_MISSING@1/", "PROVIDER_RESPONSE_NORMALIZED_MISSING@1/"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			entries := writeRun(t, dir, 0, tt.mutate)
			v := sessionlog.ValidateSessionReplayLogEntries(entries, sessionlog.DirPayloads(dir))
			var got []string
			for _, is := range v.Issues {
				got = append(got, string(is.Code)+"@"+itoa(is.Round)+"/"+is.ToolCallID)
				if is.Sequence == 0 || is.Line == 0 || is.Message == "" {
					t.Errorf("issue without location: %+v", is)
				}
			}
			if v.OK || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("issues = %v (ok %v), want %v", got, v.OK, tt.want)
			}
		})
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestValidateReportsBadPayloadReferences(t *testing.T) {
	dir := t.TempDir()
	l := openLogger(t, dir, "s1", 32)
	mustLog(t, l, sessionlog.EventAssistant, sessionlog.NewAssistantData(strings.Repeat("a", 100), nil, 0))
	mustLog(t, l, sessionlog.EventTextDelta, map[string]any{"delta": strings.Repeat("b", 100)})
	_ = l.Close()
	c := readAll(t, l.Path())
	if v := sessionlog.ValidateSessionReplayLogEntries(c.Entries, sessionlog.DirPayloads(dir)); !v.OK {
		t.Fatalf("intact log: %+v", v.Issues)
	}
	// Corrupt the first payload, delete the second, and forge references.
	var first, second struct {
		Content sessionlog.PayloadRef `json:"content"`
		Delta   sessionlog.PayloadRef `json:"delta"`
	}
	_ = json.Unmarshal(c.Entries[0].Data, &first)
	_ = json.Unmarshal(c.Entries[1].Data, &second)
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(first.Content.RelativePath)), []byte(`"tampered"`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, filepath.FromSlash(second.Delta.RelativePath))); err != nil {
		t.Fatal(err)
	}
	forged := func(seq int, ref string) sessionlog.Entry {
		return sessionlog.Entry{Sequence: int64(seq), SessionID: "s1", Event: "text_delta", Line: seq, Data: json.RawMessage(`{"delta":` + ref + `}`)}
	}
	sha := strings.Repeat("a", 64)
	entries := append(c.Entries,
		forged(3, `{"kind":"external-payload","encoding":"json","sha256":"`+sha+`","byteLength":1,"relativePath":"../../etc/`+sha+`.json"}`),
		forged(4, `{"kind":"external-payload","encoding":"json","sha256":"`+sha+`","byteLength":1,"relativePath":"other.payloads/`+sha+`.json"}`),
		forged(5, `{"kind":"external-payload","sha256":"`+sha+`"}`),
		forged(6, `{"kind":"external-payload","encoding":"gzip","sha256":"`+sha+`","byteLength":1,"relativePath":"s1.payloads/`+sha+`.json"}`),
	)
	v := sessionlog.ValidateSessionReplayLogEntries(entries, sessionlog.DirPayloads(dir))
	var seqs []int64
	for _, is := range v.Issues {
		if is.Code != sessionlog.IssuePayloadReferenceInvalid {
			t.Errorf("unexpected issue %+v", is)
		}
		seqs = append(seqs, is.Sequence)
	}
	if !reflect.DeepEqual(seqs, []int64{1, 2, 3, 4, 5, 6}) {
		t.Errorf("payload issues at sequences %v, want 1..6: %+v", seqs, v.Issues)
	}
	if _, err := sessionlog.Hydrate(c.Entries[0].Data, "s1", sessionlog.DirPayloads(dir)); !errors.Is(err, sessionlog.ErrPayloadReference) {
		t.Errorf("Hydrate of a tampered payload = %v", err)
	}
	// Without a payload source only the shapes are checked.
	v = sessionlog.ValidateSessionReplayLogEntries(entries, nil)
	if len(v.Issues) != 4 {
		t.Errorf("shape-only validation: %+v", v.Issues)
	}
}

func TestValidateSequenceAndSession(t *testing.T) {
	e := func(seq int, session string) sessionlog.Entry {
		return sessionlog.Entry{Sequence: int64(seq), SessionID: session, Event: "text_delta", Line: seq}
	}
	v := sessionlog.ValidateSessionReplayLogEntries([]sessionlog.Entry{e(1, "s"), e(3, "s"), e(2, "s"), e(4, "t")}, nil)
	var codes []string
	for _, is := range v.Issues {
		codes = append(codes, string(is.Code))
	}
	if got := strings.Join(codes, ","); got != "SEQUENCE_OUT_OF_ORDER,ENTRY_MALFORMED" {
		t.Errorf("issues = %s", got)
	}
}

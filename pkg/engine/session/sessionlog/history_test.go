package sessionlog_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
)

func textMessage(id string, role llm.Role, text string) llm.Message {
	return llm.Message{ID: id, Role: role, State: llm.StateComplete, Content: []llm.Part{llm.TextPart(text)}, CreatedAt: epoch}
}

func conversation(n int) []llm.Message {
	msgs := []llm.Message{textMessage("m0", llm.RoleSystem, "sys")}
	for i := 1; i < n; i++ {
		role := llm.RoleUser
		if i%2 == 0 {
			role = llm.RoleAssistant
		}
		msgs = append(msgs, textMessage(fmt.Sprintf("m%d", i), role, fmt.Sprintf("message %d %s", i, strings.Repeat("x", 100))))
	}
	return msgs
}

func replayAll(t *testing.T, dir, id string) sessionlog.ReplayRecord {
	t.Helper()
	c := readAll(t, sessionlog.LogPath(dir, id))
	if issues := chainIssues(sessionlog.ValidateSessionReplayLogEntries(c.Entries, sessionlog.DirPayloads(dir))); len(issues) != 0 {
		t.Fatalf("issues %+v", issues)
	}
	rec, err := sessionlog.ReplaySessionLogEntries(c.Entries, sessionlog.DirPayloads(dir))
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func lastLine(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return lines[len(lines)-1]
}

// A reopened log continues its history when the resumed conversation is the one it holds
// (by length, last ID and last message), whatever wrote its last history line: a reset
// of this version, an older whole reset (no length), an append. Otherwise (another last
// message under the same ID, another length) the reset is whole. Replay rebuilds the
// history in every case.
func TestResumedHistoryContinuesTheLog(t *testing.T) {
	base := conversation(40)
	newSystem := append([]llm.Message{textMessage("s2", llm.RoleSystem, "sys v2")}, base[1:]...)
	for _, tc := range []struct {
		name      string
		seed      func(t *testing.T, dir string)
		resumed   []llm.Message
		changed   []int
		continues bool
	}{
		{"after a reset", func(t *testing.T, dir string) {
			l := openLogger(t, dir, "s", 128)
			mustLog(t, l, sessionlog.EventHistoryMutation, sessionlog.ResetHistory(base))
		}, base, nil, true},
		{"after appends, with a new system prompt", func(t *testing.T, dir string) {
			l := openLogger(t, dir, "s", 128)
			mustLog(t, l, sessionlog.EventHistoryMutation, sessionlog.ResetHistory(base[:30]))
			for i := 30; i < 40; i++ {
				mustLog(t, l, sessionlog.EventHistoryMutation, agent.Event{Type: agent.EventHistoryMutation,
					Mutation: &agent.MutationData{Kind: "append", Index: i}, Message: &base[i]})
			}
		}, append(newSystem, textMessage("m40", llm.RoleUser, "more")), []int{0}, true},
		{"after an older whole reset", func(t *testing.T, dir string) {
			msgs, _ := json.Marshal(base)
			line := fmt.Sprintf(`{"schemaVersion":1,"sequence":1,"timestamp":"2026-03-01T12:00:00Z","sessionId":"s","event":"history_mutation","data":{"messages":%s,"mutation":{"index":0,"kind":"reset"}}}`+"\n", msgs)
			if err := os.WriteFile(sessionlog.LogPath(dir, "s"), []byte(line), 0o600); err != nil {
				t.Fatal(err)
			}
		}, base, nil, true},
		{"another last message under the same ID", func(t *testing.T, dir string) {
			l := openLogger(t, dir, "s", 128)
			mustLog(t, l, sessionlog.EventHistoryMutation, sessionlog.ResetHistory(base))
		}, append(append([]llm.Message{}, base[:39]...), textMessage("m39", llm.RoleAssistant, "edited")), nil, false},
		{"a shorter conversation", func(t *testing.T, dir string) {
			l := openLogger(t, dir, "s", 128)
			mustLog(t, l, sessionlog.EventHistoryMutation, sessionlog.ResetHistory(base))
		}, base[:39], nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.seed(t, dir)
			l := openLogger(t, dir, "s", 128)
			mustLog(t, l, sessionlog.EventHistoryMutation, sessionlog.ContinueHistory(tc.resumed, tc.changed))
			line := lastLine(t, l.Path())
			if got := strings.Contains(line, `"continues"`); got != tc.continues {
				t.Fatalf("continues = %v, want %v: %.300s", got, tc.continues, line)
			}
			if tc.continues && len(line) > 2000 {
				t.Errorf("the continuing reset is %d bytes", len(line))
			}
			// The next agent's first request is written against the history.
			req := append(append([]llm.Message{}, tc.resumed...), textMessage("u1", llm.RoleUser, "next"))
			mustLog(t, l, sessionlog.EventHistoryMutation, agent.Event{Type: agent.EventHistoryMutation, ExecutionID: "x",
				Mutation: &agent.MutationData{Kind: "append", Index: len(tc.resumed)}, Message: &req[len(req)-1]})
			mustLog(t, l, sessionlog.EventProviderRequest, agent.Event{Type: agent.EventProviderRequest, ExecutionID: "x", Round: 1,
				Request: &agent.ProviderRequestData{Provider: "p", Messages: req}})
			if line := lastLine(t, l.Path()); !strings.Contains(line, `"history":true`) || len(line) > 2000 {
				t.Errorf("the first request is not written against the history: %.300s", line)
			}
			_ = l.Close()
			rec := replayAll(t, dir, "s")
			wantJSON(t, "history", rec.Messages, req)
			wantJSON(t, "request", rec.Requests[len(rec.Requests)-1].Messages, req)
		})
	}
}

func wantJSON(t *testing.T, what string, got, want any) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Fatalf("%s:\ngot  %s\nwant %s", what, g, w)
	}
}

// A request written against the history lists the messages it sends differently (an
// interrupted answer with its note) and replay rebuilds them; a continuing reset that does
// not match the log's history fails replay and validation.
func TestHistoryBasesAreChecked(t *testing.T) {
	dir := t.TempDir()
	l := openLogger(t, dir, "s", -1)
	msgs := conversation(6)
	msgs[2].State = llm.StateInterrupted
	mustLog(t, l, sessionlog.EventHistoryMutation, sessionlog.ResetHistory(msgs))
	sent := llm.MessagesForAPI(msgs)
	mustLog(t, l, sessionlog.EventProviderRequest, agent.Event{Type: agent.EventProviderRequest, ExecutionID: "x", Round: 1,
		Request: &agent.ProviderRequestData{Provider: "p", Messages: sent}})
	if line := lastLine(t, l.Path()); !strings.Contains(line, `"replaced":[{"index":2,`) {
		t.Errorf("the interrupted answer is not listed as replaced: %s", line)
	}
	_ = l.Close()
	rec := replayAll(t, dir, "s")
	wantJSON(t, "request", rec.Requests[0].Messages, sent)

	c := readAll(t, sessionlog.LogPath(dir, "s"))
	bad := sessionlog.Entry{SchemaVersion: 1, Sequence: 9, SessionID: "s", Event: sessionlog.EventHistoryMutation,
		Data: json.RawMessage(`{"mutation":{"kind":"reset"},"continues":{"messages":5,"lastId":"m4"}}`)}
	entries := append(c.Entries, bad)
	if _, err := sessionlog.ReplaySessionLogEntries(entries, nil); !errors.Is(err, sessionlog.ErrReplay) {
		t.Errorf("replay of a reset continuing 5 messages of 6: %v", err)
	}
	issues := chainIssues(sessionlog.ValidateSessionReplayLogEntries(entries, nil))
	if len(issues) != 1 || issues[0].Code != sessionlog.IssueHistoryIndexMismatch {
		t.Errorf("issues %+v", issues)
	}
}

// chainIssues are the issues of v other than the responses these logs do not have.
func chainIssues(v sessionlog.Validation) []sessionlog.Issue {
	var out []sessionlog.Issue
	for _, is := range v.Issues {
		switch is.Code {
		case sessionlog.IssueNativeRawPayloadMissing, sessionlog.IssueResponseRawMissing, sessionlog.IssueResponseNormalizedMissing:
		default:
			out = append(out, is)
		}
	}
	return out
}

// Messages without IDs (older records, imported sessions) are matched by content, so a
// resumed session's first request is still written against the history rather than
// whole; a different message without an ID ends the shared part.
func TestHistoryBaseMatchesMessagesWithoutIDs(t *testing.T) {
	dir := t.TempDir()
	l := openLogger(t, dir, "s", -1)
	msgs := conversation(8)
	for i := 1; i < 5; i++ {
		msgs[i].ID = ""
	}
	mustLog(t, l, sessionlog.EventHistoryMutation, sessionlog.ResetHistory(msgs))
	sent := append(llm.MessagesForAPI(msgs), textMessage("new", llm.RoleUser, "next"))
	mustLog(t, l, sessionlog.EventProviderRequest, agent.Event{Type: agent.EventProviderRequest, ExecutionID: "x", Round: 1,
		Request: &agent.ProviderRequestData{Provider: "p", Messages: sent}})
	if line := lastLine(t, l.Path()); !strings.Contains(line, `"base":{"history":true,"messages":8}`) {
		t.Errorf("the request does not share the 8 history messages: %.300s", line)
	}
	other := slicesClone(sent)
	other[3] = textMessage("", llm.RoleUser, "something else")
	mustLog(t, l, sessionlog.EventProviderRequest, agent.Event{Type: agent.EventProviderRequest, ExecutionID: "y", Round: 1,
		Request: &agent.ProviderRequestData{Provider: "p", Messages: other}})
	if line := lastLine(t, l.Path()); !strings.Contains(line, `"base":{"history":true,"messages":3}`) {
		t.Errorf("a different message without an ID must end the shared part: %.300s", line)
	}
	_ = l.Close()
	rec := replayAll(t, dir, "s")
	wantJSON(t, "first request", rec.Requests[0].Messages, sent)
	wantJSON(t, "second request", rec.Requests[1].Messages, other)
}

func slicesClone(m []llm.Message) []llm.Message { return append([]llm.Message(nil), m...) }

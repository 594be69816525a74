package session_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
)

// loggedSession runs prompts in a session that logs to dir/{cfg.SessionID}.jsonl through
// the real FileLogger, shuts it down and returns the saved record.
func loggedSession(t *testing.T, dir string, st *memStore, cfg session.Config, prompts ...string) store.Record {
	t.Helper()
	lg, err := sessionlog.Open(dir, cfg.SessionID, sessionlog.Options{Now: fixedClock})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger, cfg.Store = lg, st
	s := newSession(t, cfg)
	for _, p := range prompts {
		mustRun(t, s, p)
	}
	if err := s.Shutdown(context.Background(), "other"); err != nil {
		t.Fatal(err)
	}
	if err := lg.Close(); err != nil {
		t.Fatal(err)
	}
	return st.load(t, s.ID())
}

// replayLog rebuilds the conversation from the log of id alone.
func replayLog(t *testing.T, dir, id string) []llm.Message {
	t.Helper()
	c, err := sessionlog.ReadLogFile(sessionlog.LogPath(dir, id))
	if err != nil || len(c.Skipped) > 0 {
		t.Fatalf("read log %s: %v, skipped %v", id, err, c.Skipped)
	}
	rec, err := sessionlog.ReplaySessionLogEntries(c.Entries, sessionlog.DirPayloads(dir))
	if err != nil {
		t.Fatalf("replay %s: %v", id, err)
	}
	return rec.Messages
}

func wantSameMessages(t *testing.T, what string, got, want []llm.Message) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Fatalf("%s: replayed messages differ from the record's\nreplayed %s\nrecord   %s", what, g, w)
	}
}

// Replaying a session log reproduces the record's messages for a fresh session (its system
// message included), a resumed one (appended to the same log) and a fork (a new log that
// starts from the copied conversation). A resumed session is built with the system prompt
// of its own time: it replaces the record's older one, in the history the model sees, in
// the record and in the log.
func TestSessionLog_ReplayReproducesRecordAcrossResumeAndFork(t *testing.T) {
	dir := t.TempDir()
	st := &memStore{}
	script := `
turns:
  - when: {lastUserContains: "read"}
    toolCalls: [{id: call_0, name: Read, input: {file_path: a.go}}]
  - when: {lastToolResultContains: "ran Read"}
    text: "Read it."
  - when: {lastUserContains: "again"}
    text: "Again."
`
	base := session.Config{Tools: []llm.Tool{&funcTool{name: "Read"}}, Evaluator: allowAll()}

	fresh := base
	fresh.Provider, fresh.SessionID, fresh.SystemMessage = newProvider(t, script), "s1", "SYSTEM v1"
	rec := loggedSession(t, dir, st, fresh, "read a.go")
	if got := roles(rec.Messages); got != "system,user,assistant,tool,assistant" {
		t.Fatalf("fresh record roles %s", got)
	}
	wantSameMessages(t, "fresh", replayLog(t, dir, "s1"), rec.Messages)

	p := newProvider(t, script)
	resumed := base
	resumed.Provider, resumed.SessionID, resumed.SystemMessage, resumed.Resume = p, "s1", "SYSTEM v2", &rec
	rec2 := loggedSession(t, dir, st, resumed, "again")
	if rec2.Messages[0].Role != llm.RoleSystem || rec2.Messages[0].Text() != "SYSTEM v2" || rec2.SystemPrompt != "SYSTEM v2" {
		t.Fatalf("resumed record starts with %q (system prompt %q), want SYSTEM v2", rec2.Messages[0].Text(), rec2.SystemPrompt)
	}
	if got := roles(rec2.Messages); got != "system,user,assistant,tool,assistant,user,assistant" {
		t.Fatalf("resumed record roles %s", got)
	}
	for _, m := range p.requests()[0].Messages {
		if m.Role == llm.RoleSystem && m.Text() != "SYSTEM v2" {
			t.Fatalf("the resumed model call carries the old system prompt %q", m.Text())
		}
	}
	wantSameMessages(t, "resumed", replayLog(t, dir, "s1"), rec2.Messages)

	forked := base
	forked.Provider, forked.SessionID, forked.SystemMessage, forked.Resume = newProvider(t, script), "s2", "SYSTEM v2", &rec2
	rec3 := loggedSession(t, dir, st, forked, "again")
	if got := roles(rec3.Messages); got != "system,user,assistant,tool,assistant,user,assistant,user,assistant" {
		t.Fatalf("forked record roles %s", got)
	}
	wantSameMessages(t, "forked", replayLog(t, dir, "s2"), rec3.Messages)
}

package session_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
	"github.com/robota-sdk/robota-go/pkg/tools/fs"
	"github.com/robota-sdk/robota-go/pkg/tools/workspace"
)

func realFileTools(t *testing.T, dir string) []llm.Tool {
	t.Helper()
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	read, err := fs.NewRead(ws)
	if err != nil {
		t.Fatal(err)
	}
	write, err := fs.NewWrite(ws)
	if err != nil {
		t.Fatal(err)
	}
	return []llm.Tool{read, write}
}

// Acceptance 1: a 3-turn run persists, and a session restored from the record continues
// with the full history.
func TestSession_ThreeTurnRunPersistsAndResumeContinues(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello from a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	p := newProvider(t, fmt.Sprintf(`
turns:
  - when: {lastUserContains: "read a.txt"}
    text: "Reading."
    toolCalls: [{id: call_0, name: Read, input: {file_path: %q}}]
  - when: {lastToolResultContains: "hello from a"}
    text: "a.txt says hello."
  - when: {lastUserContains: "copy it"}
    toolCalls: [{id: call_0, name: Write, input: {file_path: %q, content: "hello from b\n"}}]
  - when: {lastUserContains: "copy it", lastToolResultContains: "b.txt"}
    text: "Wrote b.txt."
  - when: {lastUserContains: "summarize"}
    text: "I read a.txt and wrote b.txt."
  - when: {lastUserContains: "continue"}
    text: "Continuing where we left off."
`, a, b))
	st := &memStore{}
	hooks := &fakeHooks{}
	cfg := session.Config{Provider: p, Tools: realFileTools(t, dir), Cwd: dir, Evaluator: allowAll(), Store: st, Hooks: hooks, Name: "demo"}
	s := newSession(t, cfg)

	want := []string{"a.txt says hello.", "Wrote b.txt.", "I read a.txt and wrote b.txt."}
	for i, prompt := range []string{"please read a.txt", "now copy it to b.txt", "summarize"} {
		if got := mustRun(t, s, prompt); got != want[i] {
			t.Fatalf("run %d answered %q, want %q", i+1, got, want[i])
		}
		if got := st.load(t, s.ID()); len(got.Messages) != len(s.Messages()) {
			t.Fatalf("after run %d the store holds %d messages, the session %d", i+1, len(got.Messages), len(s.Messages()))
		}
	}
	if data, err := os.ReadFile(b); err != nil || string(data) != "hello from b\n" {
		t.Fatalf("b.txt = %q, %v", data, err)
	}
	rec := st.load(t, s.ID())
	const wantRoles = "system,user,assistant,tool,assistant,user,assistant,tool,assistant,user,assistant"
	if got := roles(rec.Messages); got != wantRoles {
		t.Fatalf("persisted roles %s, want %s", got, wantRoles)
	}
	if rec.Cwd != dir || rec.Name != "demo" || rec.SystemPrompt != testSystem || len(rec.ToolSchemas) != 2 ||
		len(rec.Events) != 0 || rec.CreatedAt.IsZero() {
		t.Fatalf("record fields: cwd %q name %q system %q tools %d events %d created %v",
			rec.Cwd, rec.Name, rec.SystemPrompt, len(rec.ToolSchemas), len(rec.Events), rec.CreatedAt)
	}

	// Resume: a new session from the record, the same provider script.
	hooks2 := &fakeHooks{}
	cfg.Resume, cfg.Hooks, cfg.Tools = &rec, hooks2, realFileTools(t, dir)
	resumed := newSession(t, cfg)
	if resumed.ID() != s.ID() {
		t.Fatalf("resumed id %s, want %s", resumed.ID(), s.ID())
	}
	if starts := hooks2.of(session.HookSessionStart); len(starts) != 1 || starts[0].Source != session.SourceResume {
		t.Fatalf("SessionStart inputs %+v, want one with source resume", starts)
	}
	if got := mustRun(t, resumed, "continue please"); got != "Continuing where we left off." {
		t.Fatalf("resumed answer %q", got)
	}
	reqs := p.requests()
	last := reqs[len(reqs)-1]
	if len(last.Messages) != len(rec.Messages)+1 {
		t.Fatalf("resumed request carries %d messages, want the %d persisted + the prompt", len(last.Messages), len(rec.Messages))
	}
	if last.Messages[0].Role != llm.RoleSystem || last.Messages[0].Text() != testSystem {
		t.Fatalf("resumed request starts with %s %q", last.Messages[0].Role, last.Messages[0].Text())
	}
	for i, m := range rec.Messages {
		if last.Messages[i].ID != m.ID {
			t.Fatalf("message %d of the resumed request is %s, want persisted %s", i, last.Messages[i].ID, m.ID)
		}
	}
	if tr, ok := last.Messages[3].ToolResult(); !ok || !strings.Contains(tr.Content, "hello from a") {
		t.Fatalf("the first tool result is missing from the resumed request: %+v", last.Messages[3])
	}
	rec2 := st.load(t, s.ID())
	if len(rec2.Messages) != len(rec.Messages)+2 || !rec2.CreatedAt.Equal(rec.CreatedAt) {
		t.Fatalf("after resume: %d messages (want %d), createdAt %v (want %v)", len(rec2.Messages), len(rec.Messages)+2, rec2.CreatedAt, rec.CreatedAt)
	}
}

func TestSession_ResumeUnderNewIDForks(t *testing.T) {
	p := newProvider(t, "turns:\n  - text: one\n  - text: two\n")
	st := &memStore{}
	s := newSession(t, session.Config{Provider: p, Store: st, SessionID: "orig"})
	mustRun(t, s, "hi")
	rec := st.load(t, "orig")
	fork := newSession(t, session.Config{Provider: p, Store: st, SessionID: "fork", Resume: &rec})
	mustRun(t, fork, "again")
	if got := st.load(t, "orig"); len(got.Messages) != len(rec.Messages) {
		t.Fatalf("the original record changed: %d messages, want %d", len(got.Messages), len(rec.Messages))
	}
	if got := st.load(t, "fork"); len(got.Messages) != len(rec.Messages)+2 {
		t.Fatalf("fork has %d messages", len(got.Messages))
	}
}

func TestSession_RecordCarriesOpaqueFieldsAndDecoration(t *testing.T) {
	p := newProvider(t, "turns:\n  - text: ok\n")
	st := &memStore{}
	prior := store.Record{ID: "s1", Messages: []llm.Message{llm.NewSystemMessage(testSystem)},
		SandboxSnapshotID: "snap-1", MemoryEvents: []json.RawMessage{json.RawMessage(`{"kind":"saved"}`)},
		Extra: map[string]json.RawMessage{"futureField": json.RawMessage(`{"a":[1,2]}`)}}
	s := newSession(t, session.Config{Provider: p, Store: st, Resume: &prior,
		DecorateRecord: func(r *store.Record) { r.ContextReferences = []json.RawMessage{json.RawMessage(`{"ref":1}`)} }})
	mustRun(t, s, "hi")
	rec := st.load(t, "s1")
	if rec.SandboxSnapshotID != "snap-1" || len(rec.MemoryEvents) != 1 || len(rec.ContextReferences) != 1 {
		t.Fatalf("opaque fields lost: %+v", rec)
	}
	if got := string(rec.Extra["futureField"]); got != `{"a":[1,2]}` {
		t.Fatalf("unknown member futureField = %q, want it saved back", got)
	}
}

func TestSession_ResumeRejectsMalformedHistory(t *testing.T) {
	p := newProvider(t, "turns:\n  - text: ok\n")
	prior := store.Record{ID: "s1", Events: []store.Event{{Entry: json.RawMessage(`{"id":"e1","category":"event","timestamp":"yesterday"}`)}}}
	_, err := session.New(context.Background(), session.Config{Provider: p, Resume: &prior})
	if !errors.Is(err, session.ErrInvalidEntry) {
		t.Fatalf("New with a malformed stored entry: %v, want ErrInvalidEntry", err)
	}
}

func TestSession_MalformedEventEntryIsRefusedAndSavesGoOn(t *testing.T) {
	p := newProvider(t, "turns:\n  - text: ok\n")
	st := &memStore{}
	s := newSession(t, session.Config{Provider: p, Store: st})
	err := s.AddHistoryEntry(session.HistoryEntry{Category: session.CategoryEvent, Type: "note", Data: json.RawMessage(`{not json`)})
	if !errors.Is(err, session.ErrInvalidEntry) {
		t.Fatalf("AddHistoryEntry(malformed) = %v, want ErrInvalidEntry", err)
	}
	if _, err := s.Run(context.Background(), "hi"); err != nil {
		t.Fatalf("Run after a refused entry = %v", err)
	}
	if st.saves == 0 {
		t.Fatal("the session was not saved")
	}
}

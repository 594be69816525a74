package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
)

// TestHeadlessResumeContinueAndFork: a session of three robota -p runs (new, --resume ID,
// --continue) persists after each run, every run continues with the full history (the
// script only answers correctly when the provider is sent the earlier runs' tool results,
// and the log's last provider request carries all three prompts), and --fork-session
// continues under a new id without touching the original record.
func TestHeadlessResumeContinueAndFork(t *testing.T) {
	p := newProject(t)
	p.writeFile(t, "notes.txt", "The release codename is MARKER-ONE.\n")
	script := p.script(t, "resume", nil)
	base := []string{"--provider", "script", "--script", script, "--allowedTools", "Read,Bash(echo *)", "--output-format", "json"}
	args := func(prompt string, extra ...string) []string {
		return append(append([]string{"-p", prompt}, base...), extra...)
	}

	// Run 1: a new session.
	r1 := resultObject(t, p.mustRun(t, args("first question")...).Stdout)
	id, _ := r1["session_id"].(string)
	if id == "" {
		t.Fatalf("run 1: result has no session_id: %v", r1)
	}
	wantResult(t, "run 1", r1, "The notes say MARKER-ONE.")
	rec1 := p.record(t, id)
	wantRoles(t, "run 1", rec1, "system", "user", "assistant", "tool", "assistant")

	// Run 2: --resume ID.
	r2 := resultObject(t, p.mustRun(t, args("second question", "--resume", id)...).Stdout)
	wantSession(t, "run 2 (--resume)", r2, id)
	wantResult(t, "run 2 (--resume)", r2, "Earlier the notes said MARKER-ONE; now MARKER-TWO.")
	rec2 := p.record(t, id)
	wantRoles(t, "run 2", rec2, "system", "user", "assistant", "tool", "assistant",
		"user", "assistant", "tool", "assistant")
	wantPrefix(t, "run 2", rec1, rec2)

	// Run 3: --continue picks the newest session of the directory.
	r3 := resultObject(t, p.mustRun(t, args("third question", "--continue")...).Stdout)
	wantSession(t, "run 3 (--continue)", r3, id)
	wantResult(t, "run 3 (--continue)", r3, "I still remember MARKER-TWO.")
	rec3 := p.record(t, id)
	wantRoles(t, "run 3", rec3, "system", "user", "assistant", "tool", "assistant",
		"user", "assistant", "tool", "assistant", "user", "assistant")
	wantPrefix(t, "run 3", rec2, rec3)
	if got := userTexts(rec3); !slices.Equal(got, []string{"first question", "second question", "third question"}) {
		t.Fatalf("run 3: record user messages = %q", got)
	}
	if ids := p.sessionIDs(t); !slices.Equal(ids, []string{id}) {
		t.Fatalf("after three runs of one session, session files = %v, want only %s", ids, id)
	}
	if got := lastRequestUserTexts(t, p, id); !slices.Equal(got, []string{"first question", "second question", "third question"}) {
		t.Fatalf("run 3: the last provider request in the log carried user messages %q, want all three prompts", got)
	}

	// Run 4: --resume ID --fork-session.
	original, err := os.ReadFile(p.recordPath(id))
	if err != nil {
		t.Fatal(err)
	}
	r4 := resultObject(t, p.mustRun(t, args("fourth question", "--resume", id, "--fork-session")...).Stdout)
	forkID, _ := r4["session_id"].(string)
	if forkID == "" || forkID == id {
		t.Fatalf("fork: session_id = %q, want a new id (original %s)", forkID, id)
	}
	wantResult(t, "fork", r4, "Forked, and I remember MARKER-TWO.")
	after, err := os.ReadFile(p.recordPath(id))
	if err != nil {
		t.Fatalf("fork: original record: %v", err)
	}
	if !bytes.Equal(original, after) {
		t.Fatalf("fork changed the original record %s", p.recordPath(id))
	}
	fork := p.record(t, forkID)
	wantRoles(t, "fork", fork, "system", "user", "assistant", "tool", "assistant",
		"user", "assistant", "tool", "assistant", "user", "assistant", "user", "assistant")
	for i, m := range rec3.Messages {
		if fork.Messages[i].Role != m.Role || fork.Messages[i].text() != m.text() {
			t.Fatalf("fork: message %d = %s %q, want the original's %s %q", i,
				fork.Messages[i].Role, fork.Messages[i].text(), m.Role, m.text())
		}
	}
	if got := userTexts(fork); got[len(got)-1] != "fourth question" {
		t.Fatalf("fork: user messages = %q", got)
	}
	// Each log alone rebuilds its record's conversation: the resumed session's log holds
	// three runs, the fork's starts from the copied history.
	wantReplayMatchesRecord(t, p, id)
	wantReplayMatchesRecord(t, p, forkID)
}

// wantReplayMatchesRecord replays the session log of id and compares the messages with
// the record's.
func wantReplayMatchesRecord(t *testing.T, p *project, id string) {
	t.Helper()
	c, err := sessionlog.ReadLogFile(p.logPath(id))
	if err != nil || len(c.Skipped) > 0 {
		t.Fatalf("log of %s: %v, skipped lines %v", id, err, c.Skipped)
	}
	replayed, err := p.replayLog(t, id, c.Entries)
	if err != nil {
		t.Fatalf("replay of %s: %v", id, err)
	}
	rec, err := store.NewFileStore(p.sessionsDir(), store.Options{}).Load(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(replayed.Messages)
	want, _ := json.Marshal(rec.Messages)
	if !bytes.Equal(got, want) {
		t.Fatalf("replay of the log of %s differs from its record\nreplayed %s\nrecord   %s", id, got, want)
	}
}

func wantResult(t *testing.T, what string, res map[string]any, text string) {
	t.Helper()
	if res["is_error"] != false || res["subtype"] != "success" || res["result"] != text {
		t.Fatalf("%s: result = subtype %v, is_error %v, result %q; want success with %q",
			what, res["subtype"], res["is_error"], res["result"], text)
	}
}

func wantSession(t *testing.T, what string, res map[string]any, id string) {
	t.Helper()
	if res["session_id"] != id {
		t.Fatalf("%s: session_id = %v, want %s", what, res["session_id"], id)
	}
}

func wantRoles(t *testing.T, what string, rec storedRecord, roles ...string) {
	t.Helper()
	got := make([]string, len(rec.Messages))
	for i, m := range rec.Messages {
		got[i] = m.Role
	}
	if !slices.Equal(got, roles) {
		t.Fatalf("%s: record message roles = %v, want %v", what, got, roles)
	}
}

// wantPrefix checks that a later save kept the earlier messages unchanged and in order.
func wantPrefix(t *testing.T, what string, before, after storedRecord) {
	t.Helper()
	for i, m := range before.Messages {
		if i >= len(after.Messages) || after.Messages[i].ID != m.ID || after.Messages[i].text() != m.text() {
			t.Fatalf("%s: message %d (%s %q) of the previous save is not kept", what, i, m.Role, m.text())
		}
	}
}

func userTexts(rec storedRecord) []string {
	var out []string
	for _, m := range rec.Messages {
		if m.Role == "user" {
			out = append(out, m.text())
		}
	}
	return out
}

// lastRequestUserTexts returns the user messages of the last provider_request in a
// session's log: what the provider was actually sent, rebuilt by the log's replay reader
// (a request is logged as what it adds to the one before).
func lastRequestUserTexts(t *testing.T, p *project, id string) []string {
	t.Helper()
	c, err := sessionlog.ReadLogFile(p.logPath(id))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := p.replayLog(t, id, c.Entries)
	if err != nil {
		t.Fatalf("replay the log of %s: %v", id, err)
	}
	if len(rec.Requests) == 0 {
		t.Fatalf("log of %s has no provider_request", id)
	}
	var out []string
	for _, m := range rec.Requests[len(rec.Requests)-1].Messages {
		if m.Role == llm.RoleUser {
			out = append(out, m.Text())
		}
	}
	return out
}

// Issue 10 §6: --continue when the newest session record is corrupt names the file and
// what to do and exits non-zero, without continuing (or touching) an older session;
// --resume "" is a usage error.
func TestHeadlessContinueRefusesACorruptNewestRecord(t *testing.T) {
	p := newProject(t)
	p.writeFile(t, "notes.txt", "The release codename is MARKER-ONE.\n")
	script := p.script(t, "resume", nil)
	base := []string{"--provider", "script", "--script", script, "--allowedTools", "Read,Bash(echo *)", "--output-format", "json"}
	r1 := resultObject(t, p.mustRun(t, append([]string{"-p", "first question"}, base...)...).Stdout)
	id, _ := r1["session_id"].(string)
	older, err := os.ReadFile(p.recordPath(id))
	if err != nil {
		t.Fatal(err)
	}
	bad := p.recordPath("newer-session")
	if err := os.WriteFile(bad, []byte(`{"k":"h","v":1,"h":{"id":"newer-session","cwd":`), 0o600); err != nil {
		t.Fatal(err)
	}
	res := p.run(t, append([]string{"-p", "second question", "--continue"}, base...)...)
	if res.Code == 0 || !strings.Contains(res.Stderr, bad) || !strings.Contains(res.Stderr, "--resume") {
		t.Fatalf("--continue with a corrupt newest record: exit %d, stderr %q; want non-zero naming %s and what to do", res.Code, res.Stderr, bad)
	}
	if after, _ := os.ReadFile(p.recordPath(id)); !bytes.Equal(after, older) {
		t.Fatal("--continue went on with the older session")
	}
	if res := p.run(t, append([]string{"-p", "third", "--resume", ""}, base...)...); res.Code != 2 || !strings.Contains(res.Stderr, "--resume needs a session id") {
		t.Fatalf("--resume \"\": exit %d, stderr %q; want 2", res.Code, res.Stderr)
	}
}

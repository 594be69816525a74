package interactive_test

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/assemble"
	. "github.com/robota-sdk/robota-go/pkg/engine/interactive"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive/memory"
)

const secretKey = "sk-ant-api03-Zq9xW8vU7tS6rR5pP4oO3nN2"

// Each /memory subcommand answers with its message, success and data, and writes the
// project memory files it says it writes.
func TestMemoryCommand(t *testing.T) {
	dir := t.TempDir()
	s := newTestSession(t, scriptProvider(t, commandScript), Options{Cwd: dir})
	ctx := context.Background()
	var candidate string
	for _, tc := range []struct {
		name, args string
		success    bool
		msg        string
		data       map[string]any
		check      func(t *testing.T, data map[string]any)
	}{
		{args: "", success: true, msg: "0 memory topic(s), 0 pending candidate(s).", data: map[string]any{"pending": 0}},
		{args: "show", success: true, msg: "The project memory is empty"},
		{args: "add project build use make for everything", success: true, msg: "Saved to .robota/memory/topics/build.md (project).",
			data: map[string]any{"action": "save", "topic": "build", "deduplicated": false}},
		{args: "add feedback build Use make  for everything.", success: true, msg: "Already in .robota/memory/topics/build.md; nothing added.",
			data: map[string]any{"deduplicated": true}},
		{args: "add reference Docs the runbook is docs/ops.md", success: true, msg: "Saved to .robota/memory/topics/docs.md", data: map[string]any{"topic": "docs"}},
		{args: "add project keys use " + secretKey + " in prod", success: false, msg: "Not saved: it looks like an Anthropic API key",
			data: map[string]any{"action": "refuse", "kind": "an Anthropic API key"}},
		{args: "add user team ask ana@example.com for access", success: true, msg: "Queued for review as ",
			data:  map[string]any{"action": "review", "kind": "an e-mail address"},
			check: func(t *testing.T, data map[string]any) { candidate, _ = data["candidateId"].(string) }},
		{args: "add user team ask bob@example.com for access", success: true, msg: "Queued for review as "},
		{args: "review", success: true, msg: "2 pending candidate(s)."},
		{args: "list", success: true, msg: "2 memory topic(s), 2 pending candidate(s).\nbuild  1 entry  .robota/memory/topics/build.md\ndocs  1 entry",
			data: map[string]any{"pending": 2}},
		{args: "show build", success: true, msg: "# build\n\n- [project] use make for everything _(", data: map[string]any{"topic": "build"}},
		{args: "show ../../etc/passwd", success: false, msg: "invalid memory topic"},
		{args: "show nothing", success: false, msg: `unknown memory topic "nothing"; see /memory list`},
		{args: "add secret t x", success: false, msg: `invalid memory type "secret"`},
		{args: "add project ../escape text", success: false, msg: "invalid memory topic"},
		{args: "add project", success: false, msg: "Usage: /memory add"},
		{args: "approve", success: false, msg: "Usage: /memory approve <id>"},
		{args: "approve nope", success: false, msg: `unknown memory candidate "nope"`},
		{args: "reject ../x", success: false, msg: "unknown memory candidate"},
		{name: "approve", success: true, msg: "saved to .robota/memory/topics/team.md"},
		{name: "reject-other", success: true, msg: "Rejected "},
		{args: "pending", success: true, msg: "0 pending candidate(s)."},
		{args: "used", success: true, msg: "1 memory reference(s) used in this session, 9 memory event(s).\nbuild  .robota/memory/topics/build.md  1 entry",
			check: func(t *testing.T, data map[string]any) {
				events := data["memoryEvents"].([]memory.Event)
				var types []string
				for _, e := range events {
					types = append(types, e.Type)
				}
				want := "saved saved saved skipped queued queued retrieved approved rejected"
				if got := strings.Join(types, " "); got != want {
					t.Errorf("events %s; want %s", got, want)
				}
			}},
		{args: "forget", success: false, msg: `Unknown /memory subcommand "forget"`},
	} {
		args := tc.args
		switch tc.name {
		case "approve":
			args = "approve " + candidate
		case "reject-other":
			list, _ := assemble.Of(s).Memory().Store().Pending()
			if len(list) != 1 {
				t.Fatalf("pending %+v", list)
			}
			args = "reject " + list[0].ID
		}
		res, err := s.ExecuteCommand(ctx, "memory", args)
		if err != nil {
			t.Fatalf("/memory %s: %v", args, err)
		}
		if res.Success != tc.success || !strings.Contains(res.Message, tc.msg) {
			t.Errorf("/memory %s = %v %q; want %v with %q", args, res.Success, res.Message, tc.success, tc.msg)
		}
		for k, v := range tc.data {
			if got := res.Data[k]; got != v {
				t.Errorf("/memory %s: data[%s] = %v; want %v", args, k, got, v)
			}
		}
		if tc.check != nil {
			tc.check(t, res.Data)
		}
		if strings.Contains(res.Message, secretKey[10:]) {
			t.Errorf("/memory %s echoed the secret: %q", args, res.Message)
		}
	}
	index, _ := os.ReadFile(filepath.Join(dir, ".robota/memory/MEMORY.md"))
	want := "- build (project): use make for everything\n- docs (reference): the runbook is docs/ops.md\n- team (user): ask ana@example.com for access\n"
	if string(index) != want {
		t.Errorf("MEMORY.md:\n%s\nwant:\n%s", index, want)
	}
}

// A memory that looks like a secret is refused: no file under the project holds it, the
// session record holds only that something was skipped and why.
func TestMemoryRefusesSecretsEverywhere(t *testing.T) {
	dir := t.TempDir()
	s := newTestSession(t, scriptProvider(t, commandScript), Options{Cwd: dir})
	ctx := context.Background()
	for _, text := range []string{"deploy key " + secretKey, "the db password is Hunter2Hunter2", "-----BEGIN RSA PRIVATE KEY----- MIIEpAIBAAKCAQEA",
		"card 4111-1111-1111-1111"} {
		res, err := s.ExecuteCommand(ctx, "memory", "add project creds "+text)
		if err != nil || res.Success || !strings.HasPrefix(res.Message, "Not saved: it looks like ") || res.Data["reason"] == "" {
			t.Errorf("add %q = %+v, %v", text, res, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".robota/memory")); !os.IsNotExist(err) {
		t.Errorf("memory directory created for refused texts: %v", err)
	}
	if err := s.Close(ctx, "other"); err != nil {
		t.Fatal(err)
	}
	for _, needle := range []string{secretKey[10:], "Hunter2Hunter2", "MIIEpAIBAAKCAQEA", "4111-1111"} {
		_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			if b, _ := os.ReadFile(p); strings.Contains(string(b), needle) {
				t.Errorf("%s holds %q", p, needle)
			}
			return nil
		})
	}
	rec, err := assemble.Of(s).Store().Load(ctx, s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.MemoryEvents) != 4 {
		t.Fatalf("memoryEvents %d", len(rec.MemoryEvents))
	}
	var e memory.Event
	if err := json.Unmarshal(rec.MemoryEvents[1], &e); err != nil || e.Type != memory.EventSkipped || e.Reason != "a password" {
		t.Errorf("event %+v %v", e, err)
	}
}

// The memory audit trail and the used references are in the session record and come
// back with --resume, where /memory used reports them and new events add to them.
func TestMemoryAuditSurvivesResume(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	open := func(resume string) *InteractiveSession {
		s, err := New(ctx, Options{Cwd: dir, Home: t.TempDir(), Env: envOf(nil), NewID: safeIDs(),
			LLM: scriptProvider(t, commandScript), Resume: resume})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := open("")
	for _, args := range []string{"add project build use make", "show build"} {
		if res, err := s.ExecuteCommand(ctx, "memory", args); err != nil || !res.Success {
			t.Fatalf("/memory %s: %+v %v", args, res, err)
		}
	}
	id := s.ID()
	// No prompt ran and the session is not closed: the command saved the record itself.
	rec, err := assemble.Of(s).Store().Load(ctx, id)
	if err != nil || len(rec.MemoryEvents) != 2 || len(rec.UsedMemoryReferences) != 1 {
		t.Fatalf("stored before close: %d events, %d refs, %v", len(rec.MemoryEvents), len(rec.UsedMemoryReferences), err)
	}
	if err := s.Close(ctx, "other"); err != nil {
		t.Fatal(err)
	}

	r := open(id)
	defer r.Close(ctx, "other")
	res, err := r.ExecuteCommand(ctx, "memory", "used")
	if err != nil || !strings.HasPrefix(res.Message, "1 memory reference(s) used in this session, 2 memory event(s).\nbuild  .robota/memory/topics/build.md  1 entry") {
		t.Fatalf("used after resume: %q %v", res.Message, err)
	}
	if _, err := r.ExecuteCommand(ctx, "memory", "add feedback style tabs not spaces"); err != nil {
		t.Fatal(err)
	}
	// The index added before is in the resumed session's system prompt.
	if !strings.Contains(r.Session().SystemMessage(), "# Project Memory\n\n- build (project): use make") {
		t.Errorf("system prompt lacks the memory index:\n%s", r.Session().SystemMessage())
	}
	rec, err = assemble.Of(r).Store().Load(ctx, id)
	if err != nil || len(rec.MemoryEvents) != 3 || len(rec.UsedMemoryReferences) != 1 {
		t.Fatalf("after resume: %d events, %d refs, %v", len(rec.MemoryEvents), len(rec.UsedMemoryReferences), err)
	}
}

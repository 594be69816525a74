package assemble

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/robota-sdk/robota-go/pkg/engine/interactive"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive/config"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
	"github.com/robota-sdk/robota-go/pkg/providers/anthropic"
)

func envOf(m map[string]string) config.Env {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// project makes a project with a script provider profile in .claude/settings.json.
func project(t *testing.T, script, extraSettings string) (dir, home string) {
	t.Helper()
	dir, home = t.TempDir(), t.TempDir()
	scriptPath := filepath.Join(t.TempDir(), "script.yaml")
	writeFile(t, scriptPath, strings.ReplaceAll(script, "DIR", dir))
	writeFile(t, filepath.Join(dir, ".claude", "settings.json"), fmt.Sprintf(`{
  "currentProvider": "offline",
  "providers": {"offline": {"type": "script", "options": {"path": %q}}}%s
}`, scriptPath, extraSettings))
	return dir, home
}

func ids() func() string {
	n := 0
	return func() string { n++; return fmt.Sprintf("id-%03d", n) }
}

func fixedNow() time.Time { return time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC) }

func TestAssembleWithoutProviderNamesTheThreeWays(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	_, err := Assemble(context.Background(), Options{Cwd: dir, Home: home, Env: envOf(nil)})
	if !errors.Is(err, ErrNoProvider) {
		t.Fatalf("Assemble = %v, want ErrNoProvider", err)
	}
	for _, want := range []string{"--provider", "currentProvider", "ANTHROPIC_API_KEY", "OPENAI_API_KEY"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message lacks %q:\n%v", want, err)
		}
	}
}

func TestChooseProviderOrder(t *testing.T) {
	tests := []struct {
		name       string
		settings   string
		flag       string
		env        map[string]string
		wantType   string
		wantSource string
	}{
		{name: "anthropic key", env: map[string]string{"ANTHROPIC_API_KEY": "k1", "OPENAI_API_KEY": "k2"}, wantType: "anthropic", wantSource: "ANTHROPIC_API_KEY"},
		{name: "openai key", env: map[string]string{"OPENAI_API_KEY": "k2"}, wantType: "openai", wantSource: "OPENAI_API_KEY"},
		{name: "settings beat env", settings: `{"currentProvider":"p","providers":{"p":{"type":"openai","apiKey":"s"}}}`,
			env: map[string]string{"ANTHROPIC_API_KEY": "k1"}, wantType: "openai", wantSource: "settings"},
		{name: "flag beats settings", settings: `{"currentProvider":"p","providers":{"p":{"type":"openai"}}}`,
			flag: "script", env: map[string]string{"ANTHROPIC_API_KEY": "k1"}, wantType: "script", wantSource: "none"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.settings != "" {
				writeFile(t, filepath.Join(dir, ".robota", "settings.json"), tt.settings)
			}
			opts := Options{Cwd: dir, Home: t.TempDir(), Env: envOf(tt.env), Provider: tt.flag}
			s, err := loadSettings(opts)
			if err != nil {
				t.Fatal(err)
			}
			c, err := chooseProvider(s, opts)
			if err != nil {
				t.Fatal(err)
			}
			if c.Type != tt.wantType || c.APIKeySource != tt.wantSource {
				t.Fatalf("chose %s (key from %s), want %s (%s)", c.Type, c.APIKeySource, tt.wantType, tt.wantSource)
			}
		})
	}
}

const rulesScript = `
turns:
  - text: "Trying three things."
    toolCalls:
      - {id: c1, name: Bash, input: {command: "rm -rf build"}}
      - {id: c2, name: Write, input: {file_path: "DIR/notes.txt", content: "hi"}}
      - {id: c3, name: Read, input: {file_path: "DIR/README.md"}}
  - text: "Done."
`

func TestAssembledSessionAppliesSettingsRulesAndHooks(t *testing.T) {
	dir, home := project(t, rulesScript, `,
  "permissions": {"allow": ["Read", "Write"]},
  "hooks": {"PreToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "echo no writes today >&2; exit 2"}]}]}`)
	writeFile(t, filepath.Join(home, ".robota", "settings.json"), `{"permissions": {"deny": ["Bash(rm *)"]}}`)
	writeFile(t, filepath.Join(dir, "README.md"), "hello\n")
	var events []session.ToolExecutionEvent
	a, err := Assemble(context.Background(), Options{Cwd: dir, Home: home, Env: envOf(nil), Now: fixedNow, NewID: ids(),
		Callbacks: session.Callbacks{OnToolExecution: func(e session.ToolExecutionEvent) {
			if e.Type == session.ToolEnd {
				events = append(events, e)
			}
		}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Session.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(context.Background(), "other"); err != nil {
		t.Fatal(err)
	}
	got := map[string]session.ToolExecutionEvent{}
	for _, e := range events {
		got[e.ToolUseID] = e
	}
	if e := got["c1"]; !e.Denied || !strings.Contains(e.Reason, "Bash(rm *)") {
		t.Errorf("rm call = %+v, want denied by the user-settings deny rule", e)
	}
	if e := got["c2"]; e.Success || !strings.Contains(e.Reason, "no writes today") {
		t.Errorf("Write call = %+v, want blocked by the PreToolUse hook with its reason", e)
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.txt")); !os.IsNotExist(err) {
		t.Errorf("the blocked Write ran: %v", err)
	}
	if e := got["c3"]; !e.Success {
		t.Errorf("Read call = %+v, want allowed by the project allow rule", e)
	}
}

const resumeScript = `
turns:
  - when: {lastUserContains: "second"}
    text: "second answer"
  - when: {lastUserContains: "first"}
    text: "first answer"
`

func TestResumeContinueAndFork(t *testing.T) {
	dir, home := project(t, resumeScript, "")
	ctx := context.Background()
	run := func(o Options, prompt string) *Assembled {
		t.Helper()
		o.Cwd, o.Home, o.Env = dir, home, envOf(nil)
		a, err := Assemble(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Session.Run(ctx, prompt); err != nil {
			t.Fatal(err)
		}
		if err := a.Close(ctx, "other"); err != nil {
			t.Fatal(err)
		}
		return a
	}
	first := run(Options{}, "first")
	before, err := os.ReadFile(first.RecordPath)
	if err != nil {
		t.Fatal(err)
	}
	forked := run(Options{Resume: first.Session.ID(), Fork: true}, "second")
	if forked.Session.ID() == first.Session.ID() || forked.ResumedFrom != first.Session.ID() {
		t.Fatalf("fork id %s (from %s), want a new id from %s", forked.Session.ID(), forked.ResumedFrom, first.Session.ID())
	}
	after, _ := os.ReadFile(first.RecordPath)
	if string(after) != string(before) {
		t.Fatal("--fork-session rewrote the original record")
	}
	if n := len(forked.Session.Messages()); n < 5 {
		t.Fatalf("forked session has %d messages, want the first exchange plus the second", n)
	}
	cont := run(Options{Continue: true}, "second")
	// The fork is a stored session from the start (store.Fork), before its first save.
	pending, err := Assemble(ctx, Options{Cwd: dir, Home: home, Env: envOf(nil), Resume: first.Session.ID(), Fork: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(pending.RecordPath); err != nil || pending.RecordPath == first.RecordPath {
		t.Fatalf("forked record %s before any run: %v", pending.RecordPath, err)
	}
	if err := pending.Close(ctx, "other"); err != nil {
		t.Fatal(err)
	}
	if cont.Session.ID() != forked.Session.ID() {
		t.Fatalf("--continue picked %s, want the newest session %s", cont.Session.ID(), forked.Session.ID())
	}
	var texts []string
	for _, m := range cont.Session.Messages() {
		if m.Role == llm.RoleAssistant {
			texts = append(texts, m.Text())
		}
	}
	if strings.Join(texts, "|") != "first answer|second answer|second answer" {
		t.Fatalf("assistant history after continue = %q", texts)
	}
	if _, err := Assemble(ctx, Options{Cwd: dir, Home: home, Env: envOf(nil), Resume: "nope"}); err == nil ||
		!strings.Contains(err.Error(), "--resume nope: no such session") {
		t.Fatalf("resume of a missing id = %v", err)
	}
}

// A member this version does not define survives a resume: the session saves back the
// record it was resumed from, not a narrower copy.
func TestResumeKeepsUnknownRecordMembers(t *testing.T) {
	dir, home := project(t, resumeScript, "")
	ctx := context.Background()
	opts := Options{Cwd: dir, Home: home, Env: envOf(nil)}
	run := func(o Options, prompt string) *Assembled {
		t.Helper()
		a, err := Assemble(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.Session.Run(ctx, prompt); err != nil {
			t.Fatal(err)
		}
		if err := a.Close(ctx, "other"); err != nil {
			t.Fatal(err)
		}
		return a
	}
	first := run(opts, "first")
	st := store.NewFileStore(store.ProjectDir(dir), store.Options{})
	rec, err := st.Load(ctx, first.Session.ID())
	if err != nil {
		t.Fatal(err)
	}
	rec.Extra = map[string]json.RawMessage{"futureField": json.RawMessage(`{"a":[1,2]}`)}
	if err := st.Save(ctx, &rec); err != nil {
		t.Fatal(err)
	}

	opts.Resume = first.Session.ID()
	run(opts, "second")
	saved, err := st.Load(ctx, first.Session.ID())
	if err != nil {
		t.Fatal(err)
	}
	if len(saved.Messages) < 5 {
		t.Fatalf("resumed record has %d messages, want both exchanges", len(saved.Messages))
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, saved.Extra["futureField"]); err != nil || compact.String() != `{"a":[1,2]}` {
		t.Fatalf("futureField after resume = %s (%v), want it kept", saved.Extra["futureField"], err)
	}
}

// The port the session configures hosted web tools through is the one the provider that
// has them implements.
var _ session.NativeWebConfigurer = (*anthropic.Provider)(nil)

// Review A4/A9/A17: what the user must fix stops the assembly as a configuration error
// (exit 2 in robota -p) that says where; nothing invalid is skipped with a warning.
func TestConfigurationErrors(t *testing.T) {
	tests := []struct {
		name     string
		settings string
		opts     Options
		want     []string
	}{
		{name: "hook matcher that is not a regex",
			settings: `,"hooks": {"PreToolUse": [{"matcher": "Bash(", "hooks": [{"type": "command", "command": "exit 2"}]}]}`,
			want:     []string{".claude/settings.json", "hooks.PreToolUse", `matcher "Bash("`, "missing closing )"}},
		{name: "unknown hook event",
			settings: `,"hooks": {"BeforeLunch": [{"hooks": [{"type": "command", "command": "true"}]}]}`,
			want:     []string{".claude/settings.json", "hooks.BeforeLunch", "unknown hook event"}},
		{name: "invalid allowed tool rule", opts: Options{Allow: []string{"Bash("}}, want: []string{"Bash(", "command line"}},
		{name: "fork without a session", opts: Options{Fork: true}, want: []string{"--fork-session", "--resume"}},
		{name: "missing working directory", opts: Options{Cwd: "/nonexistent/robota-test"}, want: []string{"/nonexistent/robota-test"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, home := project(t, "turns:\n  - text: hi\n", tt.settings)
			opts := tt.opts
			if opts.Cwd == "" {
				opts.Cwd = dir
			}
			opts.Home, opts.Env = home, envOf(nil)
			a, err := Assemble(context.Background(), opts)
			if err == nil {
				a.Close(context.Background(), "other")
				t.Fatal("Assemble succeeded")
			}
			if !errors.Is(err, ErrInvalidConfiguration) {
				t.Fatalf("Assemble = %v, want ErrInvalidConfiguration", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestSettingsErrorsNameFileAndKey(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".claude", "settings.json"), `{"currentProvider": "work", "providers": {}}`)
	_, err := Assemble(context.Background(), Options{Cwd: dir, Home: t.TempDir(), Env: envOf(nil)})
	if err == nil || !strings.Contains(err.Error(), ".claude/settings.json") || !strings.Contains(err.Error(), "currentProvider") {
		t.Fatalf("Assemble = %v, want an error naming the file and key", err)
	}
}

// Issue 7, context: the Compact Instructions section of CLAUDE.md reaches the
// compaction prompt the session sends. The script answers the compaction request only
// if its last user message carries the instruction text.
func TestCompactInstructionsReachCompactionPrompt(t *testing.T) {
	dir, home := project(t, `
turns:
  - when: {compaction: true, lastUserContains: "Always keep the list of migrated tables."}
    text: "summary that honours the instructions"
  - text: "migrated users"
`, "")
	writeFile(t, filepath.Join(dir, "CLAUDE.md"), "# Project\n\nUse tabs.\n\n## Compact Instructions\n\nAlways keep the list of migrated tables.\n\n## Other\n\nIrrelevant.\n")
	ctx := context.Background()
	a, err := Assemble(ctx, Options{Cwd: dir, Home: home, Env: envOf(nil), Now: fixedNow, NewID: ids()})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(ctx, "other")
	if _, err := a.Session.Run(ctx, "migrate the users table"); err != nil {
		t.Fatal(err)
	}
	if err := a.Session.Compact(ctx, "focus on the API changes"); err != nil {
		t.Fatalf("compaction did not carry the project's compact instructions: %v", err)
	}
	msgs := a.Session.Messages()
	if len(msgs) != 2 || !strings.Contains(msgs[1].Text(), "summary that honours the instructions") {
		t.Fatalf("history after compaction = %d messages, last %q", len(msgs), msgs[len(msgs)-1].Text())
	}
}

// Session records and logs stay out of git and out of the model's own searches.
func TestRuntimeFilesAreGitignored(t *testing.T) {
	dir, home := project(t, "turns:\n  - text: ok\n", "")
	ctx := context.Background()
	a, err := Assemble(ctx, Options{Cwd: dir, Home: home, Env: envOf(nil)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Session.Run(ctx, "hi"); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(ctx, "other"); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	out, err := exec.Command("git", "-C", dir, "status", "--porcelain", "--untracked-files=all").CombinedOutput()
	if err != nil {
		t.Fatalf("git status: %v %s", err, out)
	}
	if !strings.Contains(string(out), ".robota/.gitignore") || !strings.Contains(string(out), ".claude/settings.json") ||
		strings.Contains(string(out), ".robota/sessions") || strings.Contains(string(out), ".robota/logs") {
		t.Fatalf("git status should list settings and .robota/.gitignore but no runtime files:\n%s", out)
	}
	// A user's own file is never rewritten.
	custom := "# mine\nlogs/\n"
	writeFile(t, filepath.Join(dir, ".robota", ".gitignore"), custom)
	if err := ensureRuntimeGitignore(dir); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, ".robota", ".gitignore")); string(got) != custom {
		t.Fatalf("user's .gitignore rewritten: %q", got)
	}
}

// Issue 10 §6: --continue when the newest record is corrupt names the file and what to do,
// and never continues an older session silently; --resume of a corrupt record does too.
func TestContinueRefusesACorruptNewestRecord(t *testing.T) {
	for _, tc := range []struct {
		name    string
		corrupt func(t *testing.T, dir, newestPath string) string // returns the corrupt file
	}{
		{"unreadable file", func(t *testing.T, dir, _ string) string {
			p := filepath.Join(store.ProjectDir(dir), "zz-newer.jsonl")
			writeFile(t, p, `{"k":"h","v":1,"h":{"id":"zz-newer"`)
			return p
		}},
		{"damaged history", func(t *testing.T, _, newestPath string) string {
			b, err := os.ReadFile(newestPath)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, newestPath, strings.Replace(string(b), `"role":"user"`, `"role":"user"!`, 1))
			return newestPath
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, home := project(t, resumeScript, "")
			ctx := context.Background()
			var paths []string
			for _, prompt := range []string{"first", "second"} {
				a, err := Assemble(ctx, Options{Cwd: dir, Home: home, Env: envOf(nil)})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := a.Session.Run(ctx, prompt); err != nil {
					t.Fatal(err)
				}
				if err := a.Close(ctx, "other"); err != nil {
					t.Fatal(err)
				}
				paths = append(paths, a.RecordPath)
				time.Sleep(10 * time.Millisecond) // distinct updatedAt
			}
			bad := tc.corrupt(t, dir, paths[1])
			_, err := Assemble(ctx, Options{Cwd: dir, Home: home, Env: envOf(nil), Continue: true})
			if !errors.Is(err, ErrCorruptSession) || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "--resume") {
				t.Fatalf("--continue with a corrupt newest record = %v, want ErrCorruptSession naming %s and what to do", err, bad)
			}
		})
	}
}

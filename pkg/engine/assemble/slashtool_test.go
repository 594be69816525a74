package assemble

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	. "github.com/robota-sdk/robota-go/pkg/engine/interactive"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive/commands"
)

func writeProjectFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		path := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// toolResults are the contents of the tool messages of the conversation, in order.
func toolResults(s *InteractiveSession) []string {
	var out []string
	for _, m := range s.Session().Messages() {
		if r, ok := m.ToolResult(); ok {
			out = append(out, r.Content)
		}
	}
	return out
}

var slashFiles = map[string]string{
	".claude/commands/greet.md":           "---\ndescription: Greet someone\n---\nSay hello to $ARGUMENTS.\n",
	".claude/commands/private.md":         "---\ndescription: Only for the user\ndisable-model-invocation: true\n---\nPrivate body.\n",
	".claude/skills/house-style/SKILL.md": "---\ndescription: House style\nuser-invocable: false\n---\nWrite in the house style about $ARGUMENTS.\n",
}

// The model runs the model-invocable commands through SlashCommand: /memory (allowed by
// a SlashCommand(/memory:*) rule), a custom command (expanded as the Skill tool does) and
// a skill hidden from the user; /rewind, a disable-model-invocation command and an
// unknown name are refused, each saying why.
func TestSlashCommandToolRunsModelInvocableCommands(t *testing.T) {
	dir := t.TempDir()
	writeProjectFiles(t, dir, slashFiles)
	p := scriptProvider(t, `
turns:
  - when: {lastUserContains: "remember"}
    toolCalls: [{id: c1, name: SlashCommand, input: {command: "/memory add project build use make"}}]
  - when: {lastToolResultContains: "Saved to"}
    toolCalls: [{id: c2, name: SlashCommand, input: {command: "/rewind list"}}]
  - when: {lastToolResultContains: "/rewind cannot be run by the model"}
    toolCalls: [{id: c3, name: SlashCommand, input: {command: "/private"}}]
  - when: {lastToolResultContains: "/private cannot be run by the model"}
    toolCalls: [{id: c4, name: SlashCommand, input: {command: "/greet Ada"}}]
  - when: {lastToolResultContains: "Say hello to Ada."}
    toolCalls: [{id: c5, name: SlashCommand, input: {command: "/house-style tests"}}]
  - when: {lastToolResultContains: "house style about tests"}
    toolCalls: [{id: c6, name: SlashCommand, input: {command: "/frobnicate"}}]
  - when: {lastToolResultContains: "Unknown command /frobnicate"}
    text: "done"
`)
	s := newTestSession(t, p, Options{Cwd: dir, Allow: []string{"SlashCommand(/memory:*)"}})
	sub := s.Subscribe()
	sent, _ := s.Submit("remember that we build with make")
	evs := until(t, sub, ends(sent.PromptID))
	if last := evs[len(evs)-1]; last.Type != EventComplete || last.Result.Response != "done" {
		t.Fatalf("prompt ended %s %+v; tool results %q", last.Type, last.Result, toolResults(s))
	}
	if b, err := os.ReadFile(filepath.Join(dir, ".robota", "memory", "topics", "build.md")); err != nil || !strings.Contains(string(b), "use make") {
		t.Fatalf("memory not written: %q, %v", b, err)
	}
	results := toolResults(s)
	for i, want := range []string{
		"Saved to .robota/memory/topics/build.md (project).",
		"/rewind cannot be run by the model: it is not model-invocable, only the user can run it. Commands the model can run: /greet, /house-style, /memory.",
		"/private cannot be run by the model",
		"Say hello to Ada.",
		"Write in the house style about tests.",
		"Unknown command /frobnicate.",
	} {
		if i >= len(results) || !strings.Contains(results[i], want) {
			t.Errorf("tool result %d = %q, want it to contain %q", i, at(results, i), want)
		}
	}
	// The user's menu has the user-invocable commands only; the skill hidden from the user
	// is refused to them.
	var names []string
	for _, c := range s.ListCommands("") {
		names = append(names, c.QualifiedName())
	}
	if !slices.Contains(names, "greet") || !slices.Contains(names, "private") || slices.Contains(names, "house-style") {
		t.Errorf("ListCommands = %v", names)
	}
	if _, err := s.ExecuteCommand(context.Background(), "house-style", "x"); !errors.Is(err, commands.ErrUnknownCommand) {
		t.Errorf("the user's /house-style (user-invocable: false) = %v", err)
	}
}

func at(list []string, i int) string {
	if i < len(list) {
		return list[i]
	}
	return "<none>"
}

// A SlashCommand call is as safe as its command: in default mode with nobody to ask,
// /memory list (read-only) runs and /memory add (write) is denied; a deny rule holds
// in bypassPermissions.
func TestSlashCommandToolPermissions(t *testing.T) {
	script := `
turns:
  - when: {lastUserContains: "go"}
    toolCalls: [{id: c1, name: SlashCommand, input: {command: "/memory add project build use make"}}]
  - when: {lastToolResultContains: "denied"}
    toolCalls: [{id: c2, name: SlashCommand, input: {command: "/memory list"}}]
  - when: {lastToolResultContains: "memory topic(s)"}
    text: "listed"
  - text: "unexpected"
`
	for _, tc := range []struct {
		name   string
		opts   Options
		noteOK bool
	}{
		{"default mode asks for a write, nobody answers", Options{}, true},
		{"deny rule in bypassPermissions", Options{PermissionMode: "bypassPermissions", Deny: []string{"SlashCommand(/memory add:*)"}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.opts.Cwd, tc.opts.Interactive.NoPrompt = dir, true
			s := newTestSession(t, scriptProvider(t, script), tc.opts)
			sub := s.Subscribe()
			sent, _ := s.Submit("go")
			evs := until(t, sub, ends(sent.PromptID))
			if last := evs[len(evs)-1]; last.Type != EventComplete || last.Result.Response != "listed" {
				t.Fatalf("prompt ended %s %+v; tool results %q", last.Type, last.Result, toolResults(s))
			}
			if _, err := os.Stat(filepath.Join(dir, ".robota", "memory", "topics", "build.md")); err == nil {
				t.Fatal("the denied /memory add wrote the memory")
			}
		})
	}
}

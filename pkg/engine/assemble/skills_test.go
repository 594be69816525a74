package assemble

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	. "github.com/robota-sdk/robota-go/pkg/engine/interactive"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive/commands"
)

// A project skill is listed to the model in the system prompt and offered through the
// Skill tool; the model's call gets the skill's text with its arguments substituted. A
// malformed skill file is a warning naming it, and the others still load.
func TestSkillInvokedByTheModel(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, content string) {
		path := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".claude/skills/release-notes/SKILL.md", "---\nname: release-notes\ndescription: Draft release notes for a version\n---\nWrite the notes for version $0 in $1 style.\n")
	// Frontmatter that is not YAML: the skill loads (fields read as key: value lines)
	// and a warning names the file.
	write(".claude/skills/broken/SKILL.md", "---\ndescription: [unclosed\n  - list: {\n---\nbody\n")
	p := scriptProvider(t, `
turns:
  - when: {systemContains: "release-notes: Draft release notes for a version"}
    toolCalls: [{id: sk, name: Skill, input: {skill: release-notes, args: "2.1 terse"}}]
  - when: {lastToolResultContains: "Write the notes for version 2.1 in terse style."}
    text: "notes drafted"
`)
	s := newTestSession(t, p, Options{Cwd: dir})
	sub := s.Subscribe()
	sent, _ := s.Submit("draft the release notes")
	evs := until(t, sub, ends(sent.PromptID))
	if last := evs[len(evs)-1]; last.Type != EventComplete || last.Result.Response != "notes drafted" {
		t.Fatalf("prompt ended %s %+v", last.Type, last.Result)
	}
	warned := false
	for _, w := range Of(s).Warnings {
		if strings.Contains(w, filepath.Join("broken", "SKILL.md")) {
			warned = true
		}
	}
	if !warned {
		t.Fatalf("no warning names the malformed skill: %v", Of(s).Warnings)
	}
	if !slices.Contains(s.Listing().SlashCommands, "broken") {
		t.Fatalf("the malformed skill is not offered: %v", s.Listing().SlashCommands)
	}
}

// The user invokes a skill as /name args: the command expands it into the prompt the
// model gets.
func TestSkillInvokedByTheUser(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".claude", "commands", "notes.md")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("---\ndescription: Draft notes\nargument-hint: VERSION\n---\nNotes for $ARGUMENTS, please.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newTestSession(t, scriptProvider(t, "turns:\n  - text: ok\n"), Options{Cwd: dir})
	if list := s.ListCommands("no"); len(list) != 1 || list[0].Name != "notes" || list[0].Source != "skill" {
		t.Fatalf("ListCommands(no) = %+v", list)
	}
	res, err := s.ExecuteCommand(context.Background(), "notes", "2.1 and 2.2")
	if err != nil || !res.Success {
		t.Fatalf("ExecuteCommand = %+v, %v", res, err)
	}
	text, _ := res.Data[commands.PromptKey].(string)
	if !strings.Contains(text, "Notes for 2.1 and 2.2, please.") {
		t.Fatalf("prompt %q", text)
	}
	// Submitting the expansion records a skill-invocation entry with the spec's
	// skillName, and skill too for readers of timelines saved before it.
	sub := s.Subscribe()
	sent, err := s.Submit(text)
	if err != nil {
		t.Fatal(err)
	}
	until(t, sub, ends(sent.PromptID))
	var got map[string]any
	for _, e := range s.History() {
		if e.Type == EntrySkillInvocation {
			if err := json.Unmarshal(e.Data, &got); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := map[string]any{"skillName": "notes", "skill": "notes", "args": "2.1 and 2.2", "displayInput": "/notes 2.1 and 2.2"}
	if !maps.Equal(got, want) {
		t.Fatalf("skill-invocation entry = %v, want %v", got, want)
	}
}

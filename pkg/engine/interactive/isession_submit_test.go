package interactive_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/robota-sdk/robota-go/pkg/engine/interactive"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// SubmitWith runs the built prompt while the user's message shows the display input
// (its metadata, which clients show) and UserPromptSubmit sees the raw input; Submit
// and an empty SubmitInput leave both as the prompt. The edit checkpoint is listed by
// what the user typed.
func TestSubmitWith(t *testing.T) {
	dir := t.TempDir()
	seen := filepath.Join(dir, "hook-input.jsonl")
	s := newTestSession(t, scriptProvider(t, `
turns:
  - when: {lastUserContains: "BUILT audit prompt"}
    text: "audited"
  - text: "plain"
    repeat: true
`), Options{Cwd: dir, Settings: `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "cat >> ` + seen + `; echo >> ` + seen + `"}]}]}}`})
	sub := s.Subscribe()
	for _, tc := range []struct {
		name, prompt string
		in           SubmitInput
		answer       string
		hookPrompt   string // UserPromptSubmit's prompt
		display      string // the user message's displayInput ("" = none)
		listedAs     string // the checkpoint's prompt
	}{
		{name: "display and raw", prompt: "BUILT audit prompt: check everything", in: SubmitInput{DisplayInput: "/audit", RawInput: "/audit src"},
			answer: "audited", hookPrompt: "/audit src", display: "/audit", listedAs: "/audit"},
		{name: "display only", prompt: "long body", in: SubmitInput{DisplayInput: "/short"},
			answer: "plain", hookPrompt: "long body", display: "/short", listedAs: "/short"},
		{name: "empty input", prompt: "just this", in: SubmitInput{}, answer: "plain", hookPrompt: "just this", listedAs: "just this"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_ = os.Remove(seen)
			sent, err := s.SubmitWith(tc.prompt, tc.in)
			if err != nil {
				t.Fatal(err)
			}
			evs := until(t, sub, ends(sent.PromptID))
			if end := evs[len(evs)-1]; end.Type != EventComplete || end.Result.Response != tc.answer {
				t.Fatalf("ended %s %+v", end.Type, end.Result)
			}
			var user llm.Message
			for _, m := range s.Session().Messages() {
				if m.Role == llm.RoleUser {
					user = m
				}
			}
			if user.Text() != tc.prompt {
				t.Fatalf("the model got %q, want the prompt %q", user.Text(), tc.prompt)
			}
			if d, _ := user.Metadata[MetadataDisplayInput].(string); d != tc.display {
				t.Fatalf("displayInput %q, want %q (metadata %v)", d, tc.display, user.Metadata)
			}
			b, err := os.ReadFile(seen)
			if err != nil {
				t.Fatal(err)
			}
			var in struct {
				Prompt string `json:"prompt"`
			}
			if err := json.Unmarshal([]byte(strings.TrimSpace(string(b))), &in); err != nil || in.Prompt != tc.hookPrompt {
				t.Fatalf("UserPromptSubmit prompt %q (%v), want %q", in.Prompt, err, tc.hookPrompt)
			}
			list, err := s.EditCheckpoints()
			if err != nil || len(list) == 0 || list[0].Prompt != tc.listedAs {
				t.Fatalf("newest checkpoint %+v, %v; want it listed as %q", list, err, tc.listedAs)
			}
		})
	}
}

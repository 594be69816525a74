package interactive_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/assemble"
	. "github.com/robota-sdk/robota-go/pkg/engine/interactive"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive/commands"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/config"
)

const commandScript = `
turns:
  - when: {compaction: true}
    text: "[Context Summary] said hello"
    repeat: true
  - when: {lastUserContains: "slow"}
    text: "slow answer"
    hang: true
  - text: "hi there"
    usage: {inputTokens: 100, outputTokens: 7}
    repeat: true
`

// Each built-in answers with its message, success and data; the ones that change the
// session apply their effect.
func TestBuiltinCommands(t *testing.T) {
	s := newTestSession(t, scriptProvider(t, commandScript), Options{})
	sub := s.Subscribe()
	sent, _ := s.Submit("hello")
	until(t, sub, ends(sent.PromptID))
	ctx := context.Background()

	for _, tc := range []struct {
		name, args string
		success    bool
		msg        string         // substring of the message
		data       map[string]any // entries the data must hold
		check      func(t *testing.T)
	}{
		{name: "help", success: true, msg: "/compact [instructions] - Compact"},
		{name: "cost", success: true, msg: "Session: " + s.ID() + "\nMessages: 3\nTokens: 100 input, 7 output (107 total)\nThis run: 1 prompt(s)",
			data: map[string]any{"sessionId": s.ID(), "messageCount": 3, "inputTokens": 100, "outputTokens": 7, "prompts": 1, "restoredTurns": 0}},
		{name: "context", success: true, msg: "Context: ", data: map[string]any{"messages": len(s.Session().Messages())}},
		{name: "mode", success: true, msg: "Permission mode: default", data: map[string]any{"mode": "default"}},
		{name: "mode", args: "plan", success: true, msg: "set to plan", check: func(t *testing.T) {
			if m := s.Session().PermissionMode(); m != "plan" {
				t.Errorf("mode = %s", m)
			}
		}},
		{name: "mode", args: "yolo", success: false, msg: `Unknown permission mode "yolo"`},
		{name: "model", args: "other-model", success: true, msg: "Model set to other-model", check: func(t *testing.T) {
			if m := s.Session().Model(); m != "other-model" {
				t.Errorf("model = %s", m)
			}
		}},
		{name: "model", success: true, msg: "Model: other-model", data: map[string]any{"model": "other-model"}},
		{name: "permissions", success: true, msg: "Mode plan", data: map[string]any{"mode": "plan"}},
		{name: "language", success: true, msg: "No response language"},
		{name: "language", args: "French", success: true, msg: "Response language set to French (saved in ", check: func(t *testing.T) {
			if sys := s.Session().SystemMessage(); !strings.Contains(sys, "Response language: French") {
				t.Errorf("system prompt after /language French:\n%s", sys)
			}
			b, err := os.ReadFile(config.UserSettingsPath(assemble.Of(s).Home()))
			if err != nil || !strings.Contains(string(b), `"language": "French"`) {
				t.Errorf("user settings: %s, %v", b, err)
			}
		}},
		{name: "language", success: true, msg: "Response language: French", data: map[string]any{"language": "French"}},
		{name: "language", args: "a\nb", success: false, msg: "on one line"},
		// The "default" choice of the subcommand list clears the setting.
		{name: "language", args: "default", success: true, msg: "Response language setting removed", data: map[string]any{"language": "", "previous": "French"}},
		{name: "memory", success: true, msg: "0 memory topic(s), 0 pending candidate(s).", data: map[string]any{"pending": 0}},
		{name: "rewind", args: "list", success: true, msg: "1 checkpoint(s), newest first. Files changed by Bash are not tracked."},
		{name: "rename", success: false, msg: "Usage: /rename NAME"},
		{name: "rename", args: "my work", success: true, msg: "renamed to my work", check: func(t *testing.T) {
			if n := s.Session().Record().Name; n != "my work" {
				t.Errorf("record name = %q", n)
			}
			// Saved at once: the store's listing shows the name.
			stored, err := assemble.Of(s).Store().Load(context.Background(), s.ID())
			if err != nil || stored.Name != "my work" {
				t.Errorf("stored name = %q, %v", stored.Name, err)
			}
		}},
		{name: "resume", success: true, msg: "robota --resume", data: map[string]any{"triggerResumePicker": true}},
		{name: "background", success: true, msg: "0 background task(s)."},
		{name: "agent", success: true, msg: "agent definition(s), 0 running subagent(s)."},
		{name: "/compact", args: "keep it short", success: true, msg: "Conversation compacted", data: map[string]any{"instructions": "keep it short"}},
		{name: "clear", success: true, msg: "Conversation cleared.", check: func(t *testing.T) {
			for _, m := range s.Session().Messages() {
				if m.Role != "system" {
					t.Errorf("a %s message is left after /clear", m.Role)
				}
			}
		}},
		{name: "reset", success: true, msg: "session permission rules removed", data: map[string]any{"sessionRulesCleared": true, "resetRequested": true}},
	} {
		res, err := s.ExecuteCommand(ctx, tc.name, tc.args)
		if err != nil {
			t.Fatalf("/%s %s: %v", tc.name, tc.args, err)
		}
		if res.Success != tc.success || !strings.Contains(res.Message, tc.msg) {
			t.Errorf("/%s %s = %v %q; want %v and %q", tc.name, tc.args, res.Success, res.Message, tc.success, tc.msg)
		}
		for k, v := range tc.data {
			if got := res.Data[k]; got != v {
				t.Errorf("/%s %s: data[%s] = %v (%T), want %v", tc.name, tc.args, k, got, got, v)
			}
		}
		if tc.check != nil {
			tc.check(t)
		}
	}
	if res, _ := s.ExecuteCommand(ctx, "compact", ""); res.Success || res.Message != "Nothing to compact yet: the conversation is empty." {
		t.Errorf("/compact after /reset = %+v", res)
	}
	if _, err := s.ExecuteCommand(ctx, "nope", ""); !errors.Is(err, commands.ErrUnknownCommand) {
		t.Errorf("unknown command: err = %v", err)
	}
}

// clear, compact, reset and model are refused while a prompt runs; the others answer.
func TestCommandsRefusedWhileRunning(t *testing.T) {
	s := newTestSession(t, scriptProvider(t, commandScript), Options{})
	sub := s.Subscribe()
	sent, _ := s.Submit("slow")
	until(t, sub, func(ev Event) bool { return ev.Type == EventTextDelta && ev.PromptID == sent.PromptID })
	for _, tc := range []struct{ name, args string }{{"clear", ""}, {"compact", ""}, {"reset", ""}, {"model", "x"}} {
		res, err := s.ExecuteCommand(context.Background(), tc.name, tc.args)
		if err != nil || res.Success || !strings.Contains(res.Message, "not available while a prompt is running") {
			t.Errorf("/%s while running = %+v, %v", tc.name, res, err)
		}
	}
	if res, _ := s.ExecuteCommand(context.Background(), "context", ""); !res.Success {
		t.Errorf("/context while running = %+v", res)
	}
	s.Abort()
	until(t, sub, ends(sent.PromptID))
}

// ListCommands filters by prefix and includes the sources added after the built-ins.
func TestListCommands(t *testing.T) {
	s := newTestSession(t, scriptProvider(t, commandScript), Options{})
	s.AddCommandSource(commands.Static{SourceName: "plugin", List: []commands.Command{{Name: "deploy", Plugin: "ops", UserInvocable: true}}})
	var got []string
	for _, c := range s.ListCommands("/co") {
		got = append(got, c.QualifiedName())
	}
	if strings.Join(got, ",") != "compact,context,cost" {
		t.Errorf("ListCommands(/co) = %v", got)
	}
	if l := s.ListCommands("ops:"); len(l) != 1 || l[0].Source != "plugin" {
		t.Errorf("ListCommands(ops:) = %+v", l)
	}
	// The spec's subcommand trees: mode, model and language offer their choices.
	for _, tc := range []struct {
		name string
		want []string // choices the command must offer
	}{
		{"mode", []string{"default", "acceptEdits", "plan", "bypassPermissions"}},
		{"model", []string{"default", "sonnet", "opus", "haiku"}},
		{"language", []string{"default", "English", "Korean", "Japanese", "Chinese"}},
	} {
		l := s.ListCommands(tc.name)
		if len(l) == 0 || l[0].Name != tc.name {
			t.Fatalf("ListCommands(%s) = %+v", tc.name, l)
		}
		for _, w := range tc.want {
			if !slices.Contains(l[0].Subcommands, w) {
				t.Errorf("/%s subcommands %v lack %q", tc.name, l[0].Subcommands, w)
			}
		}
	}
}

// /cost after a resume counts the usage of the prompts the session ran before: its
// usage-summary entries, then this run's prompts on top.
func TestCostRestoredAfterResume(t *testing.T) {
	dir := t.TempDir()
	s := newTestSession(t, scriptProvider(t, commandScript), Options{Cwd: dir})
	sub := s.Subscribe()
	for _, p := range []string{"one", "two"} {
		sent, _ := s.Submit(p)
		until(t, sub, ends(sent.PromptID))
	}
	_ = s.Close(context.Background(), "other")

	r := resumeSession(t, dir, s.ID(), "r")
	res, err := r.ExecuteCommand(context.Background(), "cost", "")
	if err != nil || !strings.Contains(res.Message, "Tokens: 200 input, 14 output (214 total); 200 input and 14 output restored from 2 earlier turn(s)") ||
		res.Data["sessionId"] != s.ID() || res.Data["messageCount"] != 5 || res.Data["restoredTurns"] != 2 {
		t.Fatalf("/cost after resume = %q %v, %v", res.Message, res.Data, err)
	}
	rsub := r.Subscribe()
	sent, _ := r.Submit("three")
	until(t, rsub, ends(sent.PromptID))
	if res, _ := r.ExecuteCommand(context.Background(), "cost", ""); res.Data["inputTokens"] != 300 || res.Data["prompts"] != 1 {
		t.Fatalf("/cost after one more prompt = %q %v", res.Message, res.Data)
	}
}

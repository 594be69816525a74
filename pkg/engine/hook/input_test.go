package hook

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// documented is Claude Code's stdin schema per event, written out independently of
// EventFields.
var documented = map[Event]map[string]any{
	PreToolUse:         {"tool_name": "Bash", "tool_input": map[string]any{"command": "ls"}, "tool_use_id": "toolu_1"},
	PostToolUse:        {"tool_name": "Bash", "tool_input": map[string]any{"command": "ls"}, "tool_response": map[string]any{"stdout": "a"}, "tool_use_id": "toolu_1"},
	PostToolUseFailure: {"tool_name": "Bash", "tool_input": map[string]any{"command": "ls"}, "tool_use_id": "toolu_1", "error": "exit 1", "is_interrupt": true},
	PermissionRequest:  {"tool_name": "Bash", "tool_input": map[string]any{"command": "ls"}, "tool_use_id": "toolu_1", "permission_suggestions": []any{}},
	UserPromptSubmit:   {"prompt": "fix the bug"},
	Stop:               {"stop_hook_active": true, "last_assistant_message": "done", "response": "done"},
	StopFailure:        {"error": "rate_limit", "error_details": "429", "last_assistant_message": "done", "reason": "429 Too Many Requests"},
	SubagentStart:      {"agent_id": "a1", "agent_type": "Explore"},
	SubagentStop:       {"stop_hook_active": true, "agent_id": "a1", "agent_type": "Explore", "agent_transcript_path": "/t/a1.jsonl", "last_assistant_message": "done"},
	SessionStart:       {"source": "startup", "model": "claude-x"},
	SessionEnd:         {"reason": "prompt_input_exit"},
	PreCompact:         {"trigger": "manual", "custom_instructions": "keep the plan"},
	PostCompact:        {"trigger": "auto", "compact_summary": "summary"},
	Notification:       {"message": "needs approval", "title": "Permission", "notification_type": "permission_prompt"},
	WorktreeCreate:     {"name": "feature-x"},
	WorktreeRemove:     {"worktree_path": "/w/feature-x"},
}

func fullInput(ev Event) Input {
	return Input{
		Event: ev, SessionID: "sess-1", TranscriptPath: "/t/sess-1.jsonl", Cwd: "/work/p", PermissionMode: "acceptEdits",
		ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"ls"}`), ToolUseID: "toolu_1",
		ToolResponse: json.RawMessage(`{"stdout":"a"}`), Error: map[Event]string{StopFailure: "rate_limit"}[ev] + map[Event]string{PostToolUseFailure: "exit 1"}[ev],
		ErrorDetails: "429", IsInterrupt: true, Prompt: "fix the bug", StopHookActive: true, LastAssistantMessage: "done",
		Response: "done", Source: "startup", Model: "claude-x",
		Reason: map[Event]string{SessionEnd: "prompt_input_exit", StopFailure: "429 Too Many Requests"}[ev], Trigger: map[Event]string{PreCompact: "manual", PostCompact: "auto"}[ev],
		CustomInstructions: "keep the plan", CompactSummary: "summary", Message: "needs approval", Title: "Permission",
		NotificationType: "permission_prompt", AgentID: "a1", AgentType: "Explore", AgentTranscriptPath: "/t/a1.jsonl",
		Name: "feature-x", WorktreePath: "/w/feature-x",
	}
}

// TestStdinCarriesDocumentedFields runs a real script for every event and checks the
// JSON it read: the common fields, the event's documented fields, and nothing else.
func TestStdinCarriesDocumentedFields(t *testing.T) {
	project := t.TempDir()
	for _, ev := range Events {
		t.Run(string(ev), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "stdin.json")
			r := NewRunner(config(ev, group("", cmdHook(script(t, "capture.sh", out)))), project)
			res := r.Run(context.Background(), fullInput(ev))
			if len(res.Errors) != 0 || len(res.Runs) != 1 {
				t.Fatalf("errors %v", res.Errors)
			}
			b, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatalf("stdin is not JSON: %v: %s", err, b)
			}
			want := map[string]any{"session_id": "sess-1", "transcript_path": "/t/sess-1.jsonl", "cwd": "/work/p",
				"permission_mode": "acceptEdits", "hook_event_name": string(ev)}
			for k, v := range documented[ev] {
				want[k] = v
			}
			if gk, wk := keys(got), keys(want); gk != wk {
				t.Fatalf("fields\n got %s\nwant %s", gk, wk)
			}
			gj, _ := json.Marshal(got)
			wj, _ := json.Marshal(want)
			if string(gj) != string(wj) {
				t.Fatalf("values\n got %s\nwant %s", gj, wj)
			}
		})
	}
}

func keys(m map[string]any) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ",")
}

func TestFalseAndEmptyFieldsArePresent(t *testing.T) {
	b, err := json.Marshal(Input{Event: Stop})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if v, ok := got["stop_hook_active"]; !ok || v != false {
		t.Fatalf("stop_hook_active missing or wrong: %s", b)
	}
	if _, err := json.Marshal(Input{Event: "Nope"}); err == nil {
		t.Fatal("an unknown event must not marshal")
	}
}

func TestCommandEnvironment(t *testing.T) {
	project, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "stdin.json")
	r := NewRunner(config(SessionStart, group("", cmdHook(script(t, "capture.sh", out)))), project)
	if res := r.Run(context.Background(), Input{Event: SessionStart, Source: "startup"}); len(res.Errors) != 0 {
		t.Fatal(res.Errors)
	}
	b, err := os.ReadFile(out + ".env")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), project+"\n"+project+"\n"+project+"\n"; got != want {
		t.Fatalf("cwd, CLAUDE_PROJECT_DIR, ROBOTA_PROJECT_DIR = %q, want %q", got, want)
	}
}

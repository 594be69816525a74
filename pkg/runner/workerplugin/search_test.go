package workerplugin_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
	"github.com/robota-sdk/robota-go/pkg/runner/worker"
)

// excludingHost is an engine that sends, with each call it lets run, what a search leaves
// out as its walk finds it then (background's searchHost).
type excludingHost struct {
	*engineHost
	exclude []string
}

func (h excludingHost) RunTool(ctx context.Context, call runnerapi.ToolCall, exec runnerapi.ToolExec) llm.ToolResult {
	return h.engineHost.RunTool(ctx, call, func(ctx context.Context, in json.RawMessage) llm.ToolResult {
		return exec(runnerapi.WithSearchExclude(ctx, h.exclude), in)
	})
}

// What the engine sends a Grep or Glob call to leave out reaches the worker's search
// tools over the plugin's HostService: a file the job's own list did not name (it did
// not exist when the job started) is neither searched nor listed.
func TestAgentJobOverTheWireSearchesLeaveOutTheCallsExclusions(t *testing.T) {
	const marker = "MARK-wire-search-3b9f"
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret.txt")
	for name, body := range map[string]string{secret: marker + "\n", filepath.Join(dir, "notes.txt"): "nothing\n"} {
		if err := os.WriteFile(name, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name     string
		exclude  []string
		wantLeft bool
	}{
		{"with the call's list", []string{secret}, true},
		{"without one the job's holds", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eh := &engineHost{script: []llm.ChatResponse{
				toolTurn("toolu_1", "Grep", map[string]string{"pattern": "MARK-wire", "output_mode": "content"}),
				toolTurn("toolu_2", "Glob", map[string]string{"pattern": "*.txt"}),
				textTurn("done"),
			}}
			r := dispenseWorker(t, worker.New(nil))
			start(t, r, runnerapi.Job{ID: "job-search", Host: excludingHost{engineHost: eh, exclude: tc.exclude},
				Agent: &runnerapi.AgentJob{AgentType: "general-purpose", Prompt: "search", SystemPrompt: "sys", Model: "m",
					Cwd: dir, Tools: []string{"Grep", "Glob"}}})
			if len(eh.execs) != 2 {
				t.Fatalf("local results = %+v", eh.execs)
			}
			grep, glob := eh.execs[0].ModelContent(), eh.execs[1].ModelContent()
			if !strings.Contains(glob, "notes.txt") {
				t.Fatalf("Glob did not run: %q", glob)
			}
			if left := !strings.Contains(grep, marker); left != tc.wantLeft {
				t.Errorf("Grep left the file out = %v, want %v: %q", left, tc.wantLeft, grep)
			}
			if left := !strings.Contains(glob, "secret.txt"); left != tc.wantLeft {
				t.Errorf("Glob left the file out = %v, want %v: %q", left, tc.wantLeft, glob)
			}
		})
	}
}

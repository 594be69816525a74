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
	"github.com/robota-sdk/robota-go/pkg/sandbox"
)

func TestMain(m *testing.M) {
	sandbox.RunIfSandbox() // the in-process worker's sandboxed commands start from this binary
	os.Exit(m.Run())
}

// walkingHost is an engine that sends a policy with each command it lets run, as the
// session's sandbox walks it then (background's commandHost).
type walkingHost struct {
	*engineHost
	callSandbox *runnerapi.Sandbox
}

func (h walkingHost) RunTool(ctx context.Context, call runnerapi.ToolCall, exec runnerapi.ToolExec) llm.ToolResult {
	return h.engineHost.RunTool(ctx, call, func(ctx context.Context, in json.RawMessage) llm.ToolResult {
		return exec(runnerapi.WithSandbox(ctx, h.callSandbox), in)
	})
}

// The policy the engine sends with a call's execute step reaches the worker's Bash over
// the plugin's HostService: a file the job's sandbox did not list (it did not exist
// when the job started) is hidden from the command.
func TestAgentJobOverTheWireRunsBashInTheCallsSandbox(t *testing.T) {
	if ok, why := sandbox.Available(); !ok {
		t.Skipf("the command sandbox cannot be made here: %s", why)
	}
	const marker = "MARK-wire-policy-91ce"
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret.txt")
	if err := os.WriteFile(secret, []byte(marker+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		call       *runnerapi.Sandbox
		wantHidden bool
	}{
		{"with the call's policy", &runnerapi.Sandbox{Hide: []string{secret}}, true},
		{"without one the job's holds", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eh := &engineHost{script: []llm.ChatResponse{
				toolTurn("toolu_1", "Bash", map[string]string{"command": "cat secret.txt; echo ran"}),
				textTurn("done"),
			}}
			r := dispenseWorker(t, worker.New(nil))
			start(t, r, runnerapi.Job{ID: "job-sb", Host: walkingHost{engineHost: eh, callSandbox: tc.call},
				Sandbox: &runnerapi.Sandbox{}, Agent: &runnerapi.AgentJob{AgentType: "general-purpose", Prompt: "read",
					SystemPrompt: "sys", Model: "m", Cwd: dir, Tools: []string{"Bash"}}})
			if len(eh.execs) != 1 {
				t.Fatalf("local results = %+v", eh.execs)
			}
			out := eh.execs[0].ModelContent()
			if !strings.Contains(out, "ran") {
				t.Fatalf("the command did not run: %q", out)
			}
			if hidden := !strings.Contains(out, marker); hidden != tc.wantHidden {
				t.Fatalf("hidden = %v, want %v: %q", hidden, tc.wantHidden, out)
			}
		})
	}
}

package worker

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
	"github.com/robota-sdk/robota-go/pkg/sandbox"
)

func TestMain(m *testing.M) {
	sandbox.RunIfSandbox() // this test binary is the sandbox's first process for sandboxed commands
	os.Exit(m.Run())
}

// policyHost is the engine side of one Bash call: it lets the call run, with callSandbox
// as the call's own policy (the engine's walk as the call runs), nil sending none.
type policyHost struct {
	runnerapi.Host
	callSandbox *runnerapi.Sandbox
}

func (h policyHost) RunTool(ctx context.Context, call runnerapi.ToolCall, exec runnerapi.ToolExec) llm.ToolResult {
	return exec(runnerapi.WithSandbox(ctx, h.callSandbox), call.Input)
}

// A job's Bash command runs in the sandbox the engine sent with the call when there is
// one (it was walked as the call ran, and so lists a denied file an earlier command
// brought in), and in the job's own, made as it started, when there is none (an older
// engine).
func TestAgentBashUsesTheCallsSandbox(t *testing.T) {
	if ok, why := sandbox.Available(); !ok {
		t.Skipf("the command sandbox cannot be made here: %s", why)
	}
	const marker = "MARK-call-policy-2b9d"
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret.txt")
	if err := os.WriteFile(secret, []byte(marker+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	hides := &runnerapi.Sandbox{Hide: []string{secret}}
	for _, tc := range []struct {
		name       string
		job, call  *runnerapi.Sandbox
		wantHidden bool
	}{
		{"the call's policy hides what the job's did not list", &runnerapi.Sandbox{}, hides, true},
		{"without the call's policy the job's holds", hides, nil, true},
		{"the call's policy replaces the job's", hides, &runnerapi.Sandbox{}, false},
		{"neither hides", &runnerapi.Sandbox{}, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tools, err := agentTools(dir, nil, []string{"Bash"}, policyHost{callSandbox: tc.call},
				&jobEvents{emit: func(runnerapi.Event) error { return nil }}, tc.job, nil)
			if err != nil || len(tools) != 1 {
				t.Fatalf("tools = %v, %v", tools, err)
			}
			args, _ := json.Marshal(map[string]string{"command": "cat secret.txt; echo ran"})
			ctx := llm.WithToolCall(context.Background(), llm.ToolCallInfo{ID: "call_1"})
			res := tools[0].Execute(ctx, args)
			out := res.ModelContent()
			if !strings.Contains(out, "ran") {
				t.Fatalf("the command did not run: %q", out)
			}
			if hidden := !strings.Contains(out, marker); hidden != tc.wantHidden {
				t.Fatalf("hidden = %v, want %v: %q", hidden, tc.wantHidden, out)
			}
		})
	}
}

// A worker runs one proxy per allow-list, from the first job that carries it on.
func TestNetworkProxyIsSharedPerAllowList(t *testing.T) {
	t.Cleanup(func() {
		proxiesMu.Lock()
		defer proxiesMu.Unlock()
		for _, nw := range proxies {
			_ = os.RemoveAll(filepath.Dir(nw.ProxySocket))
		}
		proxies = nil
	})
	a := &runnerapi.SandboxNetwork{Allow: []string{"example.com"}}
	first, err := networkProxy(a)
	if err != nil {
		t.Fatal(err)
	}
	again, err := networkProxy(&runnerapi.SandboxNetwork{Allow: []string{"example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	other, err := networkProxy(&runnerapi.SandboxNetwork{Allow: []string{"example.org"}})
	if err != nil {
		t.Fatal(err)
	}
	if first != again || first == other || first.ProxySocket == "" {
		t.Fatalf("proxies: first %+v, again %+v, other %+v: want one per allow-list", first, again, other)
	}
}

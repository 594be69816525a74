package integration

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
	"github.com/robota-sdk/robota-go/pkg/providers/script"
	"github.com/robota-sdk/robota-go/pkg/runner/launcher"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// recordingProvider keeps every request its provider is sent.
type recordingProvider struct {
	inner llm.Provider
	mu    sync.Mutex
	reqs  []llm.ChatRequest
}

func (p *recordingProvider) Name() string { return p.inner.Name() }

func (p *recordingProvider) Chat(ctx context.Context, req llm.ChatRequest, cb llm.Callbacks) (llm.ChatResponse, error) {
	p.mu.Lock()
	p.reqs = append(p.reqs, req)
	p.mu.Unlock()
	return p.inner.Chat(ctx, req, cb)
}

func (p *recordingProvider) requests() []llm.ChatRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]llm.ChatRequest(nil), p.reqs...)
}

// writeDenier is the parent session's evaluator here: a deny rule on one path, the rest
// allowed.
type writeDenier struct{ path string }

func (d writeDenier) Evaluate(_ context.Context, req session.PermissionRequest, _ session.PermissionMode) session.PermissionDecision {
	if req.ToolName == "Write" && strings.Contains(string(req.Input), d.path) {
		return session.PermissionDecision{Behavior: session.BehaviorDeny, Reason: "matched deny rule Write(" + d.path + ")"}
	}
	return session.PermissionDecision{Behavior: session.BehaviorAllow, Reason: "allowed"}
}

// TestAgentJobRunsInARealWorkerWithoutSecrets: a subagent job runs in a robota-worker
// process; its model calls come back to this process (the engine), whose provider is a
// script and whose environment holds an API key that the worker never sees; its tools
// run in the worker, decided by the parent session's rules.
func TestAgentJobRunsInARealWorkerWithoutSecrets(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-engine-only")
	t.Setenv("OPENAI_API_KEY", "sk-engine-only")
	dir := t.TempDir()
	written, denied := filepath.Join(dir, "report.md"), filepath.Join(dir, "blocked.md")
	p, err := script.New([]byte(`
turns:
  - toolCalls:
      - {id: toolu_1, name: Write, input: {file_path: "`+written+`", content: "# Report\n"}}
  - toolCalls:
      - {id: toolu_2, name: Write, input: {file_path: "`+denied+`", content: "no"}}
      - {id: toolu_3, name: Bash, input: {command: "echo pid=$PPID; env | grep -c _API_KEY= || true"}}
  - text: "Report written."
`), "agentjob.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rec := &recordingProvider{inner: p}
	parent, err := session.New(context.Background(), session.Config{Provider: rec, Model: "claude-sonnet-4-5", Cwd: dir,
		Evaluator: writeDenier{path: "blocked.md"}})
	if err != nil {
		t.Fatal(err)
	}
	host := parent.SubagentHost(session.SubagentHostConfig{Cwd: dir})

	w, _ := launch(t, launcher.Command{Path: filepath.Join(binDir, "robota-worker")})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var evs []runnerapi.Event
	var environ string
	err = w.Runner.Start(ctx, runnerapi.Job{ID: "agent-1", Host: host, Agent: &runnerapi.AgentJob{
		AgentType: "general-purpose", Prompt: "write the report", Cwd: dir, Tools: []string{"Write", "Bash"},
	}}, func(ev runnerapi.Event) error {
		evs = append(evs, ev)
		if ev.Kind == runnerapi.EventToolStart && environ == "" {
			environ = readEnviron(t, w.PID) // while the worker runs the agent job
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	last := evs[len(evs)-1]
	if last.Kind != runnerapi.EventCompleted || last.Output != "Report written." {
		t.Fatalf("terminal = %+v; events %+v", last, evs)
	}
	if evs[0].Kind != runnerapi.EventStarted || evs[0].PID != w.PID || evs[0].PID == os.Getpid() {
		t.Fatalf("started = %+v; want the worker's pid %d, not the engine's %d", evs[0], w.PID, os.Getpid())
	}
	if data, err := os.ReadFile(written); err != nil || string(data) != "# Report\n" {
		t.Fatalf("report.md = %q, %v", data, err)
	}
	if _, err := os.Stat(denied); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the parent's deny rule did not hold in the worker (stat: %v)", err)
	}
	if environ == "" || strings.Contains(environ, "_API_KEY=") || strings.Contains(environ, "sk-") {
		t.Fatalf("worker pid %d environment holds a key (or was not read):\n%s", w.PID, environ)
	}
	// The Bash tool ran in the worker (its shell's parent is the worker) and found no key;
	// the model saw the denial of the other Write.
	results := map[string]string{}
	for _, req := range rec.requests() {
		for _, m := range req.Messages {
			if tr, ok := m.ToolResult(); ok {
				results[tr.ToolCallID] = tr.Content
			}
		}
	}
	if got := results["toolu_3"]; !strings.Contains(got, "pid="+itoa(w.PID)+"\n0") {
		t.Fatalf("Bash result = %q; want it run by the worker (pid %d) with no *_API_KEY", got, w.PID)
	}
	if got := results["toolu_2"]; !strings.Contains(got, "Permission denied for Write: matched deny rule") {
		t.Fatalf("denied Write result = %q", got)
	}
	if d := host.PermissionDenials(); len(d) != 1 || d[0].ToolUseID != "toolu_2" {
		t.Fatalf("denials = %+v", d)
	}
	if u := parent.SubagentUsage(); u.OutputTokens == 0 {
		t.Fatalf("the subagent's usage was not accounted to the parent: %+v", u)
	}
}

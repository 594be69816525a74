package background

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
	"github.com/robota-sdk/robota-go/pkg/runner/tasks"
)

// walks is a JobSandbox whose every Policy is a new walk (one more path hidden each
// time), and which counts the commands it was told ended.
type walks struct {
	mu     sync.Mutex
	n      int
	events []string
}

func (w *walks) Policy() *runnerapi.Sandbox {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n++
	w.events = append(w.events, fmt.Sprintf("walk %d", w.n))
	return &runnerapi.Sandbox{Hide: []string{fmt.Sprintf("/p/made-by-%d", w.n)}}
}

func (w *walks) InWorktree(string, string) JobSandbox { return w }

func (w *walks) CommandEnded() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.events = append(w.events, "ended")
}

// passHost is the engine's permission pipeline letting every call run as it is.
type passHost struct{ runnerapi.Host }

func (passHost) RunTool(ctx context.Context, call runnerapi.ToolCall, exec runnerapi.ToolExec) llm.ToolResult {
	return exec(ctx, call.Input)
}

// callingRunner is a worker that makes the given tool calls of an agent job through its
// Host and records the sandbox each execution got.
type callingRunner struct {
	tasks.Runner
	calls []string
	job   runnerapi.Job
	got   []*runnerapi.Sandbox
}

func (r *callingRunner) Start(ctx context.Context, job runnerapi.Job, _ func(runnerapi.Event) error) error {
	r.job = job
	for i, name := range r.calls {
		job.Host.RunTool(ctx, runnerapi.ToolCall{ID: fmt.Sprint(i), Name: name, Input: json.RawMessage(`{}`)},
			func(ctx context.Context, _ json.RawMessage) llm.ToolResult {
				sb, _ := runnerapi.SandboxFrom(ctx)
				r.got = append(r.got, sb)
				return llm.ToolSuccess("ok")
			})
	}
	return nil
}

// A sandboxed agent job's Bash calls each run with the policy walked as they run, not
// only the one the job started with, and each one's end asks for the next walk; its
// other tools' calls carry none and ask for nothing.
func TestAgentJobBashCallsGetTheSandboxWalkedAsTheyRun(t *testing.T) {
	w := &walks{}
	r := &callingRunner{calls: []string{"Bash", "Read", "Bash"}}
	jobs := sandboxedJobs{Runner: r, sandbox: w}
	err := jobs.Start(context.Background(), runnerapi.Job{ID: "agent-1", Agent: &runnerapi.AgentJob{Cwd: "/p"}, Host: passHost{}},
		func(runnerapi.Event) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if r.job.Sandbox == nil || !slices.Equal(r.job.Sandbox.Hide, []string{"/p/made-by-1"}) {
		t.Fatalf("the job started with %+v, want the first walk's", r.job.Sandbox)
	}
	var hides [][]string
	for _, sb := range r.got {
		if sb == nil {
			hides = append(hides, nil)
			continue
		}
		hides = append(hides, sb.Hide)
	}
	want := [][]string{{"/p/made-by-2"}, nil, {"/p/made-by-3"}}
	if !slices.EqualFunc(hides, want, slices.Equal) {
		t.Errorf("the calls ran with %q, want %q", hides, want)
	}
	if wantEvents := []string{"walk 1", "walk 2", "ended", "walk 3", "ended"}; !slices.Equal(w.events, wantEvents) {
		t.Errorf("sandbox events %q, want %q", w.events, wantEvents)
	}
}

// A process job's command has no Host to go through: it runs with the job's policy.
func TestProcessJobRunsWithItsStartPolicy(t *testing.T) {
	w := &walks{}
	r := &callingRunner{}
	if err := (sandboxedJobs{Runner: r, sandbox: w}).Start(context.Background(),
		runnerapi.Job{ID: "bash_1", Process: &runnerapi.ProcessJob{Command: "true"}}, nil); err != nil {
		t.Fatal(err)
	}
	if r.job.Host != nil || r.job.Sandbox == nil {
		t.Errorf("process job host %v sandbox %+v", r.job.Host, r.job.Sandbox)
	}
}

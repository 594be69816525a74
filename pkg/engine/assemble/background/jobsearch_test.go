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

// searchWalks is a JobSearch whose every Exclude is a new walk (one more path found each
// time).
type searchWalks struct {
	mu sync.Mutex
	n  int
}

func (w *searchWalks) Exclude() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n++
	return []string{fmt.Sprintf("/p/found-by-%d", w.n)}
}

func (w *searchWalks) InWorktree(string, string) JobSearch { return w }

// searchingRunner is a worker that makes the given tool calls of an agent job through its
// Host and records what each execution was told to leave out.
type searchingRunner struct {
	tasks.Runner
	calls []string
	job   runnerapi.Job
	got   [][]string
}

func (r *searchingRunner) Start(ctx context.Context, job runnerapi.Job, _ func(runnerapi.Event) error) error {
	r.job = job
	for i, name := range r.calls {
		job.Host.RunTool(ctx, runnerapi.ToolCall{ID: fmt.Sprint(i), Name: name, Input: json.RawMessage(`{}`)},
			func(ctx context.Context, _ json.RawMessage) llm.ToolResult {
				r.got = append(r.got, runnerapi.SearchExcludeFrom(ctx))
				return llm.ToolSuccess("ok")
			})
	}
	return nil
}

// An agent job's Grep and Glob calls each leave out what the rules cover as they run,
// not only what the job started with; its other tools' calls carry nothing. This holds
// with the sandbox off (no JobSandbox): the search filter is no part of it.
func TestAgentJobSearchCallsGetTheExclusionsWalkedAsTheyRun(t *testing.T) {
	for _, sandboxed := range []bool{false, true} {
		t.Run(fmt.Sprintf("sandbox=%v", sandboxed), func(t *testing.T) {
			r := &searchingRunner{calls: []string{"Grep", "Read", "Bash", "Glob"}}
			jobs := sandboxedJobs{Runner: r, search: &searchWalks{}}
			if sandboxed {
				jobs.sandbox = &walks{}
			}
			err := jobs.Start(context.Background(), runnerapi.Job{ID: "agent-1", Agent: &runnerapi.AgentJob{Cwd: "/p"}, Host: passHost{}},
				func(runnerapi.Event) error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(r.job.Agent.SearchExclude, []string{"/p/found-by-1"}) {
				t.Fatalf("the job started with %q, want the first walk's", r.job.Agent.SearchExclude)
			}
			want := [][]string{{"/p/found-by-2"}, nil, nil, {"/p/found-by-3"}}
			if !slices.EqualFunc(r.got, want, slices.Equal) {
				t.Errorf("the calls left out %q, want %q", r.got, want)
			}
		})
	}
}

// A process job has no search tools: it gets no Host and no list.
func TestProcessJobGetsNoSearchHost(t *testing.T) {
	r := &searchingRunner{}
	if err := (sandboxedJobs{Runner: r, search: &searchWalks{}}).Start(context.Background(),
		runnerapi.Job{ID: "bash_1", Process: &runnerapi.ProcessJob{Command: "true"}}, nil); err != nil {
		t.Fatal(err)
	}
	if r.job.Host != nil || r.job.Agent != nil {
		t.Errorf("process job host %v agent %+v", r.job.Host, r.job.Agent)
	}
}

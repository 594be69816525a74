package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

type nopHost struct{}

func (nopHost) Chat(context.Context, llm.ChatRequest, llm.Callbacks) (llm.ChatResponse, error) {
	return llm.ChatResponse{}, nil
}

func (nopHost) RunTool(context.Context, runnerapi.ToolCall, runnerapi.ToolExec) llm.ToolResult {
	return llm.ToolResult{}
}

func TestSpawnBatch(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		jobs := map[string]runnerapi.Job{}
		f := newFake(func(job runnerapi.Job) []step {
			mu.Lock()
			jobs[job.ID] = job
			mu.Unlock()
			if job.Agent.Prompt == "fail" {
				return []step{started(1), sleepFor(time.Second), failed("model refused", 0)}
			}
			return []step{started(1), sleepFor(time.Second), completed("answer to " + job.Agent.Prompt)}
		})
		m := newManager(t, Config{Runner: f, MaxConcurrent: 4})
		s := NewSubagentManager(m, nil)
		host := nopHost{}
		base := SubagentRequest{Cwd: "/repo/sub", Host: host, ParentSessionID: "sess", ParentToolUseID: "toolu_9", Mode: ModeForeground}
		with := func(f func(*SubagentRequest)) SubagentRequest { r := base; f(&r); return r }
		reqs := []SubagentRequest{
			with(func(r *SubagentRequest) {
				r.Prompt = "map the repo"
				r.AgentType = "Explore"
				r.Model = "haiku"
				r.Tools = []string{"Read"}
			}),
			with(func(r *SubagentRequest) { r.Prompt = "  " }),
			with(func(r *SubagentRequest) {
				r.Prompt = "fix it"
				r.Isolation = IsolationWorktree
				r.Description = "fixer"
			}),
			with(func(r *SubagentRequest) { r.Prompt = "x"; r.Isolation = "container" }),
			with(func(r *SubagentRequest) { r.Prompt = "fail" }),
		}
		b := s.SpawnBatch(reqs)
		synctest.Wait()
		// Every valid job started before anything waited.
		if f.maxActive != 3 {
			t.Errorf("%d jobs ran at once, want 3", f.maxActive)
		}
		res, err := s.WaitBatch(t.Context(), b)
		if err != nil {
			t.Fatal(err)
		}
		if res.GroupID != "group_1" || !slices.Equal(res.AgentIDs, []string{"agent_1", "agent_2", "agent_3"}) {
			t.Errorf("envelope = %s %v", res.GroupID, res.AgentIDs)
		}
		got, _ := json.MarshalIndent(res, "", "  ")
		golden := filepath.Join("testdata", "batch_result.golden.json")
		if *update {
			_ = os.WriteFile(golden, append(got, '\n'), 0o644)
		}
		want, _ := os.ReadFile(golden)
		if string(got)+"\n" != string(want) {
			t.Errorf("batch result differs from %s:\n%s", golden, got)
		}
		// The jobs reached the runner as asked, tagged with the batch.
		j := jobs["agent_1"]
		if j.Host != host || j.Agent.AgentType != "Explore" || j.Agent.Model != "haiku" || j.Agent.Cwd != "/repo/sub" ||
			!slices.Equal(j.Agent.Tools, []string{"Read"}) {
			t.Errorf("job 1 = %+v %+v", j, j.Agent)
		}
		if j := jobs["agent_2"]; j.Agent.AgentType != DefaultAgentType || j.Agent.Isolation != IsolationWorktree {
			t.Errorf("job 2 = %+v", j.Agent)
		}
		for _, task := range s.List(Filter{GroupID: "group_1"}) {
			if task.ParentToolUseID != "toolu_9" || task.ParentSessionID != "sess" || task.Mode != ModeForeground {
				t.Errorf("task %s = %+v", task.ID, task)
			}
		}
	})
}

func TestWaitBatchContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake(fixed(started(1), hang))
		m := newManager(t, Config{Runner: f})
		s := NewSubagentManager(m, func() string { return "g" })
		b := s.SpawnBatch([]SubagentRequest{{Prompt: "a"}, {Prompt: "b"}})
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		if _, err := s.WaitBatch(ctx, b); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("wait = %v", err)
		}
		// The jobs run on; the caller cancels them.
		for _, j := range b.Jobs {
			got, err := s.Cancel(t.Context(), j.AgentID, "parent aborted")
			if err != nil || got.State != StateCancelled {
				t.Errorf("cancel %s = %+v, %v", j.AgentID, got, err)
			}
		}
		res, err := s.Wait(t.Context(), b.Jobs[1].AgentID, b.Jobs[0].AgentID)
		if err != nil || res[0].AgentID != "agent_2" || res[1].Status != StateCancelled {
			t.Errorf("wait = %+v, %v", res, err)
		}
		if _, err := s.Spawn(SubagentRequest{}); !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("spawn without prompt: %v", err)
		}
	})
}

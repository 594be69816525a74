package agenttool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// fakeSpawner records what the Agent tool asks for. A prompt containing "spawn-error"
// fails to start; "hang" waits until the wait's ctx ends; "barrier" waits until every
// barrier job is being waited for (so sequential waits would never finish); "fail"
// ends failed. Others complete with "done: PROMPT".
type fakeSpawner struct {
	mu        sync.Mutex
	n         int
	reqs      []SpawnRequest
	prompts   map[string]string
	events    []string
	cancelled []string
	barrier   sync.WaitGroup
	barrierN  int
	result    func(id, prompt string) AgentResult
	onHang    func() // called when a "hang" wait begins
}

func newFakeSpawner(barrierJobs int) *fakeSpawner {
	f := &fakeSpawner{prompts: map[string]string{}, barrierN: barrierJobs}
	f.barrier.Add(barrierJobs)
	return f
}

func (f *fakeSpawner) Spawn(ctx context.Context, req SpawnRequest) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if strings.Contains(req.Prompt, "spawn-error") {
		f.events = append(f.events, "spawn-error")
		return "", errors.New("no worker available")
	}
	f.n++
	id := fmt.Sprintf("agent-%d", f.n)
	f.reqs = append(f.reqs, req)
	f.prompts[id] = req.Prompt
	f.events = append(f.events, "spawn "+id)
	return id, nil
}

func (f *fakeSpawner) Wait(ctx context.Context, id string) (AgentResult, error) {
	f.mu.Lock()
	prompt := f.prompts[id]
	f.events = append(f.events, "wait "+id)
	f.mu.Unlock()
	switch {
	case strings.Contains(prompt, "hang"):
		if f.onHang != nil {
			f.onHang()
		}
		<-ctx.Done()
		return AgentResult{}, ctx.Err()
	case strings.Contains(prompt, "barrier"):
		f.barrier.Done()
		done := make(chan struct{})
		go func() { f.barrier.Wait(); close(done) }()
		select {
		case <-done:
		case <-ctx.Done():
			return AgentResult{}, ctx.Err()
		}
	}
	if f.result != nil {
		return f.result(id, prompt), nil
	}
	if strings.Contains(prompt, "fail") {
		return AgentResult{AgentID: id, Status: StatusFailed, Error: "provider error", Output: "partial"}, nil
	}
	return AgentResult{AgentID: id, Status: StatusCompleted, Output: "done: " + prompt,
		TotalTokens: 120, ToolUses: 3, DurationMs: 45}, nil
}

func (f *fakeSpawner) Cancel(id, reason string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cancelled = append(f.cancelled, id)
	return nil
}

var testTypes = []AgentType{
	{Name: "Explore", Description: "Read-only search.", DisallowedTools: []string{"Edit", "Write"}},
	{Name: "general-purpose", Description: "Does anything."},
	{Name: "reviewer", Description: "Reviews\n  code.", Tools: []string{"Read", "Grep"}, Isolation: "worktree"},
	{Name: "watcher", Description: "Runs in the background.", Background: true},
}

func newTestAgent(t *testing.T, s Spawner) *Agent {
	t.Helper()
	a, err := NewAgent(Config{Spawner: s, AgentTypes: testTypes, NewGroupID: func() string { return "group-1" }})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func call(t *testing.T, tool llm.Tool, ctx context.Context, args any) llm.ToolResult {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	if ctx == nil {
		ctx = context.Background()
	}
	ctx = llm.WithToolCall(ctx, llm.ToolCallInfo{ID: "toolu_1", Name: tool.Schema().Name})
	return tool.Execute(ctx, raw)
}

// fakeTasks is a TaskReader and TaskStopper over a map. WaitTask finishes a task listed in
// finishOnWait (as if it ended while waited for) and otherwise waits for ctx.
type fakeTasks struct {
	mu           sync.Mutex
	tasks        map[string]TaskInfo
	finishOnWait map[string]TaskInfo
	vanish       bool // WaitTask reports the task gone
	stopErr      error
	stopped      []string
}

func (f *fakeTasks) Task(_ context.Context, id string) (TaskInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, ok := f.tasks[id]
	if !ok {
		return TaskInfo{}, fmt.Errorf("lookup %s: %w", id, ErrTaskNotFound)
	}
	return t, nil
}

func (f *fakeTasks) WaitTask(ctx context.Context, id string) (TaskInfo, error) {
	f.mu.Lock()
	if f.vanish {
		f.mu.Unlock()
		return TaskInfo{}, ErrTaskNotFound
	}
	if t, ok := f.finishOnWait[id]; ok {
		f.tasks[id] = t
		f.mu.Unlock()
		return t, nil
	}
	t := f.tasks[id]
	f.mu.Unlock()
	<-ctx.Done()
	return t, nil
}

func (f *fakeTasks) StopTask(_ context.Context, id string) (StoppedTask, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stopped = append(f.stopped, id)
	if f.stopErr != nil {
		return StoppedTask{}, f.stopErr
	}
	t, ok := f.tasks[id]
	if !ok {
		return StoppedTask{}, ErrTaskNotFound
	}
	return StoppedTask{ID: id, Type: t.Type, Command: t.Command}, nil
}

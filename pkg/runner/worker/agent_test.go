package worker

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// scriptHost is a runnerapi.Host whose model answers from a script, one response per
// call, and whose permission pipeline is decide. It records what it was asked.
type scriptHost struct {
	script []llm.ChatResponse
	// decide answers a tool call: "" runs it, anything else denies it with that reason.
	decide func(runnerapi.ToolCall) string
	// block, when set, makes the call with that index wait for its context.
	block int

	mu       sync.Mutex
	requests []llm.ChatRequest
	calls    []runnerapi.ToolCall
	executed []string
}

func (h *scriptHost) Chat(ctx context.Context, req llm.ChatRequest, cb llm.Callbacks) (llm.ChatResponse, error) {
	h.mu.Lock()
	n := len(h.requests)
	h.requests = append(h.requests, req)
	h.mu.Unlock()
	if h.block > 0 && n+1 == h.block {
		<-ctx.Done()
		return llm.ChatResponse{Message: llm.NewAssistantMessage(nil, llm.StateInterrupted), StopReason: llm.StopReasonAborted}, ctx.Err()
	}
	if n >= len(h.script) {
		return llm.ChatResponse{}, llm.NewError(llm.CodeRateLimit, "script exhausted", nil)
	}
	resp := h.script[n]
	if text := resp.Message.Text(); text != "" {
		cb.TextDelta(text)
	}
	return resp, nil
}

func (h *scriptHost) RunTool(ctx context.Context, call runnerapi.ToolCall, exec runnerapi.ToolExec) llm.ToolResult {
	h.mu.Lock()
	h.calls = append(h.calls, call)
	h.mu.Unlock()
	if h.decide != nil {
		if reason := h.decide(call); reason != "" {
			return llm.ToolFailure("Permission denied for " + call.Name + ": " + reason)
		}
	}
	h.mu.Lock()
	h.executed = append(h.executed, call.Name)
	h.mu.Unlock()
	return exec(ctx, call.Input)
}

func toolTurn(id, name string, input any) llm.ChatResponse {
	raw, _ := json.Marshal(input)
	return llm.ChatResponse{
		Message:    llm.NewAssistantMessage([]llm.Part{llm.ToolUsePart(llm.ToolCall{ID: id, Name: name, Input: raw})}, ""),
		StopReason: llm.StopReasonToolUse,
	}
}

func textTurn(text string) llm.ChatResponse {
	return llm.ChatResponse{Message: llm.NewAssistantMessage([]llm.Part{llm.TextPart(text)}, ""), StopReason: llm.StopReasonEndTurn}
}

func kinds(evs []runnerapi.Event) []string {
	var out []string
	for _, ev := range evs {
		out = append(out, ev.Kind.String())
	}
	return out
}

func TestAgentJobWritesThroughTheHostAndAnswers(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "hello.txt")
	host := &scriptHost{script: []llm.ChatResponse{
		toolTurn("call_1", "Write", map[string]string{"file_path": target, "content": "hi from the subagent\n"}),
		textTurn("I wrote hello.txt."),
	}}
	evs := runJob(t, New(nil), runnerapi.Job{ID: "a1", Host: host, Agent: &runnerapi.AgentJob{
		AgentType: "general-purpose", Prompt: "write hello", SystemPrompt: "be brief", Model: "m", Cwd: dir,
	}}, nil)

	// The loop separates the rounds' text with a blank line.
	if got, want := kinds(evs), []string{"started", "tool_start", "tool_end", "text_delta", "text_delta", "completed"}; !slices.Equal(got, want) {
		t.Fatalf("events = %v, want %v", got, want)
	}
	if evs[3].Text+evs[4].Text != "\n\nI wrote hello.txt." {
		t.Fatalf("text deltas = %q %q", evs[3].Text, evs[4].Text)
	}
	for i, ev := range evs {
		if ev.Sequence != uint64(i+1) || ev.JobID != "a1" {
			t.Fatalf("event %d = %+v: sequence/job id wrong", i, ev)
		}
	}
	if evs[0].PID != os.Getpid() {
		t.Fatalf("started pid = %d, want the worker's %d", evs[0].PID, os.Getpid())
	}
	if tool := evs[1].Tool; tool == nil || tool.Name != "Write" || tool.CallID != "call_1" || tool.FirstArg != target {
		t.Fatalf("tool_start = %+v, want Write call_1 on %s", evs[1].Tool, target)
	}
	if tool := evs[2].Tool; tool == nil || tool.Error != "" {
		t.Fatalf("tool_end = %+v, want success", evs[2].Tool)
	}
	if last := evs[len(evs)-1]; last.Output != "I wrote hello.txt." {
		t.Fatalf("completed output = %q", last.Output)
	}
	data, err := os.ReadFile(target)
	if err != nil || string(data) != "hi from the subagent\n" {
		t.Fatalf("file = %q, %v", data, err)
	}
	first := host.requests[0]
	if first.Model != "m" || first.Agent != "general-purpose" || first.Messages[0].Role != llm.RoleSystem ||
		first.Messages[0].Text() != "be brief" || first.Messages[1].Text() != "write hello" {
		t.Fatalf("first model request = %+v", first)
	}
	// The second request carries the tool result the host returned.
	if tr, ok := host.requests[1].Messages[len(host.requests[1].Messages)-1].ToolResult(); !ok || tr.IsError {
		t.Fatalf("second request ends with %+v, want the Write's successful result", tr)
	}
}

func TestAgentJobDeniedToolNeverRuns(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "nope.txt")
	host := &scriptHost{
		script: []llm.ChatResponse{
			toolTurn("c1", "Write", map[string]string{"file_path": target, "content": "x"}),
			textTurn("I could not write it."),
		},
		decide: func(c runnerapi.ToolCall) string { return "Write is denied by rule Write" },
	}
	evs := runJob(t, New(nil), runnerapi.Job{ID: "d", Host: host, Agent: &runnerapi.AgentJob{Prompt: "write", Cwd: dir}}, nil)
	if _, err := os.Stat(target); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("denied Write left a file (stat err %v)", err)
	}
	if len(host.executed) != 0 {
		t.Fatalf("executed %v after a denial", host.executed)
	}
	end := evs[2]
	if end.Kind != runnerapi.EventToolEnd || !strings.Contains(end.Tool.Error, "Permission denied for Write") {
		t.Fatalf("tool_end = %+v, want the denial", end)
	}
	if tr, _ := host.requests[1].Messages[len(host.requests[1].Messages)-1].ToolResult(); !tr.IsError ||
		!strings.Contains(tr.Content, "denied by rule") {
		t.Fatalf("model saw %+v, want the denial", tr)
	}
	if last := evs[len(evs)-1]; last.Kind != runnerapi.EventCompleted || last.Output != "I could not write it." {
		t.Fatalf("terminal = %+v", last)
	}
}

func TestAgentJobToolsAreRestrictedAndNeverIncludeAgent(t *testing.T) {
	tests := []struct {
		name  string
		allow []string
		want  []string
	}{
		{"all built-ins by default", nil, []string{"Bash", "Read", "Write", "Edit", "Glob", "Grep", "WebFetch", "WebSearch"}},
		{"allowlist", []string{"Read", "Grep", "Agent", "Task"}, []string{"Read", "Grep"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			host := &scriptHost{script: []llm.ChatResponse{textTurn("ok")}}
			runJob(t, New(nil), runnerapi.Job{ID: "t", Host: host, Agent: &runnerapi.AgentJob{Prompt: "p", Cwd: t.TempDir(), Tools: tt.allow}}, nil)
			var got []string
			for _, s := range host.requests[0].Tools {
				got = append(got, s.Name)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("tools offered = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestAgentJobCallingAnUnofferedToolIsRefused(t *testing.T) {
	host := &scriptHost{script: []llm.ChatResponse{
		toolTurn("c1", "Agent", map[string]string{"prompt": "recurse"}),
		textTurn("done"),
	}}
	evs := runJob(t, New(nil), runnerapi.Job{ID: "r", Host: host, Agent: &runnerapi.AgentJob{Prompt: "p", Cwd: t.TempDir()}}, nil)
	if len(host.calls) != 0 {
		t.Fatalf("the host was asked about %v; an unregistered tool must not reach it", host.calls)
	}
	if tr, _ := host.requests[1].Messages[len(host.requests[1].Messages)-1].ToolResult(); !tr.IsError || !strings.Contains(tr.Content, "not registered") {
		t.Fatalf("model saw %+v, want the unknown-tool error", tr)
	}
	if last := evs[len(evs)-1]; last.Kind != runnerapi.EventCompleted {
		t.Fatalf("terminal = %+v", last)
	}
}

func TestAgentJobHonoursMaxTurns(t *testing.T) {
	dir := t.TempDir()
	glob := func(id string) llm.ChatResponse { return toolTurn(id, "Glob", map[string]string{"pattern": "*"}) }
	host := &scriptHost{script: []llm.ChatResponse{glob("1"), glob("2"), textTurn("summary after the cap")}}
	evs := runJob(t, New(nil), runnerapi.Job{ID: "m", Host: host, Agent: &runnerapi.AgentJob{Prompt: "p", Cwd: dir, MaxTurns: 2}}, nil)
	// Two rounds, then the forced summary call without tools.
	if len(host.requests) != 3 || len(host.requests[2].Tools) != 0 || host.requests[2].Purpose != llm.PurposeFinalSummary {
		t.Fatalf("model was asked %d times (last %+v), want 2 rounds and a summary", len(host.requests), host.requests[len(host.requests)-1].Purpose)
	}
	if last := evs[len(evs)-1]; last.Kind != runnerapi.EventCompleted || last.Output != "summary after the cap" {
		t.Fatalf("terminal = %+v", last)
	}
}

func TestAgentJobProviderFailureFailsTheJob(t *testing.T) {
	host := &scriptHost{} // empty script: the first call fails with a rate limit
	evs := runJob(t, New(nil), runnerapi.Job{ID: "f", Host: host, Agent: &runnerapi.AgentJob{Prompt: "p", Cwd: t.TempDir()}}, nil)
	last := evs[len(evs)-1]
	if last.Kind != runnerapi.EventFailed || !strings.Contains(last.Error, "script exhausted") ||
		last.Category != string(llm.CategoryProvider) || !last.Recoverable {
		t.Fatalf("terminal = %+v, want failed with the provider's classified error", last)
	}
}

func TestAgentJobCancelStopsTheModelCall(t *testing.T) {
	w := New(nil)
	host := &scriptHost{block: 1}
	done := make(chan []runnerapi.Event, 1)
	go func() {
		var evs []runnerapi.Event
		_ = w.Start(context.Background(), runnerapi.Job{ID: "c", Host: host, Agent: &runnerapi.AgentJob{Prompt: "p", Cwd: t.TempDir()}},
			func(ev runnerapi.Event) error { evs = append(evs, ev); return nil })
		done <- evs
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		host.mu.Lock()
		asked := len(host.requests)
		host.mu.Unlock()
		if asked == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the job never called the model")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if running, err := w.Cancel(context.Background(), "c", "user stop"); err != nil || !running {
		t.Fatalf("Cancel = %v, %v", running, err)
	}
	select {
	case evs := <-done:
		if last := evs[len(evs)-1]; last.Kind != runnerapi.EventCancelled || last.Reason != "user stop" {
			t.Fatalf("terminal = %+v, want cancelled with the reason", last)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cancelled agent job did not end")
	}
	if running, err := w.Cancel(context.Background(), "c", "again"); err != nil || running {
		t.Fatalf("Cancel after the end = %v, %v; want false", running, err)
	}
	if err := w.Send(context.Background(), "c", "more"); err == nil {
		t.Fatal("Send to an ended agent job succeeded")
	}
}

func TestAgentJobEngineGoneCancels(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	host := &scriptHost{block: 1}
	var evs []runnerapi.Event
	go func() {
		for {
			host.mu.Lock()
			n := len(host.requests)
			host.mu.Unlock()
			if n == 1 {
				cancel()
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	err := New(nil).Start(ctx, runnerapi.Job{ID: "g", Host: host, Agent: &runnerapi.AgentJob{Prompt: "p", Cwd: t.TempDir()}},
		func(ev runnerapi.Event) error { evs = append(evs, ev); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if last := evs[len(evs)-1]; last.Kind != runnerapi.EventCancelled || last.Reason != reasonEngineGone {
		t.Fatalf("terminal = %+v, want cancelled because the engine went away", last)
	}
}

func TestAgentJobReadLogHoldsItsText(t *testing.T) {
	w := New(nil)
	host := &scriptHost{script: []llm.ChatResponse{textTurn("the answer")}}
	runJob(t, w, runnerapi.Job{ID: "l", Host: host, Agent: &runnerapi.AgentJob{Prompt: "p", Cwd: t.TempDir()}}, nil)
	page, err := w.ReadLog(context.Background(), "l", 0, 0)
	if err != nil || string(page.Data) != "the answer" || !page.EOF {
		t.Fatalf("ReadLog = %q eof %v, %v", page.Data, page.EOF, err)
	}
}

func TestAgentJobWithoutHostIsRefused(t *testing.T) {
	err := New(nil).Start(context.Background(), runnerapi.Job{ID: "a", Agent: &runnerapi.AgentJob{}}, func(runnerapi.Event) error { return nil })
	if !errors.Is(err, ErrNoHost) {
		t.Fatalf("agent job without host = %v, want ErrNoHost", err)
	}
}

func TestAgentJobAdditionalDirsWidenTheWorkspace(t *testing.T) {
	for _, tt := range []struct {
		name  string
		given bool
	}{{"outside without it", false}, {"inside with it", true}} {
		t.Run(tt.name, func(t *testing.T) {
			cwd, extra := t.TempDir(), t.TempDir()
			target := filepath.Join(extra, "shared.txt")
			host := &scriptHost{script: []llm.ChatResponse{
				toolTurn("c1", "Write", map[string]string{"file_path": target, "content": "x"}), textTurn("ok"),
			}}
			job := &runnerapi.AgentJob{Prompt: "p", Cwd: cwd}
			if tt.given {
				job.AdditionalDirs = []string{extra}
			}
			runJob(t, New(nil), runnerapi.Job{ID: "x", Host: host, Agent: job}, nil)
			_, err := os.Stat(target)
			if written := err == nil; written != tt.given {
				t.Fatalf("file written = %v with additional dirs %v", written, job.AdditionalDirs)
			}
		})
	}
}

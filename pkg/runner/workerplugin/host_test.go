package workerplugin_test

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

	plugin "github.com/hashicorp/go-plugin"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
	"github.com/robota-sdk/robota-go/pkg/runner/worker"
	"github.com/robota-sdk/robota-go/pkg/runner/workerplugin"
)

// engineHost is the engine side of an agent job in these tests: a scripted model and a
// permission pipeline given as a function. It records what crossed the wire.
type engineHost struct {
	script []llm.ChatResponse
	// thinking is streamed before each scripted answer's text.
	thinking string
	// decide answers a tool call: deny != "" denies it, else exec runs with input (the
	// call's own when nil).
	decide func(runnerapi.ToolCall) (deny string, input json.RawMessage)
	// blockChat makes every model call wait for its context.
	blockChat bool

	mu        sync.Mutex
	requests  []llm.ChatRequest
	calls     []runnerapi.ToolCall
	execs     []llm.ToolResult
	chatEnded chan error
}

func (h *engineHost) Chat(ctx context.Context, req llm.ChatRequest, cb llm.Callbacks) (llm.ChatResponse, error) {
	h.mu.Lock()
	n := len(h.requests)
	h.requests = append(h.requests, req)
	h.mu.Unlock()
	if h.blockChat {
		<-ctx.Done()
		if h.chatEnded != nil {
			h.chatEnded <- ctx.Err()
		}
		return llm.ChatResponse{StopReason: llm.StopReasonAborted}, ctx.Err()
	}
	if n >= len(h.script) {
		return llm.ChatResponse{}, llm.WrapProviderError("anthropic", llm.NewError(llm.CodeRateLimit, "slow down", errors.New("429")))
	}
	if h.thinking != "" {
		cb.ThinkingDelta(h.thinking)
	}
	resp := h.script[n]
	if text := resp.Message.Text(); text != "" {
		cb.TextDelta(text)
	}
	return resp, nil
}

func (h *engineHost) RunTool(ctx context.Context, call runnerapi.ToolCall, exec runnerapi.ToolExec) llm.ToolResult {
	h.mu.Lock()
	h.calls = append(h.calls, call)
	h.mu.Unlock()
	input := call.Input
	if h.decide != nil {
		deny, in := h.decide(call)
		if deny != "" {
			return llm.ToolFailure("Permission denied for " + call.Name + ": " + deny)
		}
		if in != nil {
			input = in
		}
	}
	res := exec(ctx, input)
	h.mu.Lock()
	h.execs = append(h.execs, res)
	h.mu.Unlock()
	// What the model sees is the engine's word: here, the local result plus a note, as
	// PostToolUse feedback would add.
	res.Output += "\n[checked by the engine]"
	return res
}

func toolTurn(id, name string, input any) llm.ChatResponse {
	raw, _ := json.Marshal(input)
	return llm.ChatResponse{
		Message:    llm.NewAssistantMessage([]llm.Part{llm.ToolUsePart(llm.ToolCall{ID: id, Name: name, Input: raw})}, ""),
		StopReason: llm.StopReasonToolUse,
	}
}

func textTurn(text string) llm.ChatResponse {
	u := llm.Usage{InputTokens: 10, OutputTokens: 3}
	m := llm.NewAssistantMessage([]llm.Part{llm.TextPart(text)}, "")
	m.Usage = &u
	return llm.ChatResponse{Message: m, StopReason: llm.StopReasonEndTurn}
}

// dispenseWorker connects a real worker Runner to the engine side over go-plugin's
// in-memory gRPC connection, broker included.
func dispenseWorker(t testing.TB, w *worker.Worker) runnerapi.Runner {
	t.Helper()
	client, _ := plugin.TestPluginGRPCConn(t, false, map[string]plugin.Plugin{workerplugin.PluginName: &workerplugin.GRPCPlugin{Impl: w}})
	t.Cleanup(func() { client.Close() })
	raw, err := client.Dispense(workerplugin.PluginName)
	if err != nil {
		t.Fatal(err)
	}
	return raw.(runnerapi.Runner)
}

func start(t *testing.T, r runnerapi.Runner, job runnerapi.Job) []runnerapi.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var evs []runnerapi.Event
	if err := r.Start(ctx, job, func(ev runnerapi.Event) error { evs = append(evs, ev); return nil }); err != nil {
		t.Fatal(err)
	}
	return evs
}

func kinds(evs []runnerapi.Event) []string {
	var out []string
	for _, ev := range evs {
		out = append(out, ev.Kind.String())
	}
	return out
}

func TestAgentJobOverTheWireWritesWhatTheEngineAllows(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out.txt")
	host := &engineHost{
		thinking: "hmm",
		script: []llm.ChatResponse{
			toolTurn("toolu_1", "Write", map[string]string{"file_path": target, "content": "model's text\n"}),
			textTurn("Done: out.txt written."),
		},
		// A PreToolUse hook rewrote the input: the worker must write the engine's version.
		decide: func(c runnerapi.ToolCall) (string, json.RawMessage) {
			return "", json.RawMessage(`{"file_path":"` + target + `","content":"engine's text\n"}`)
		},
	}
	r := dispenseWorker(t, worker.New(nil))
	evs := start(t, r, runnerapi.Job{ID: "job-w", Host: host, Agent: &runnerapi.AgentJob{
		AgentType: "general-purpose", Prompt: "write out.txt", SystemPrompt: "sys", Model: "claude-x", Cwd: dir,
		Tools: []string{"Write", "Read"},
	}})

	if got, want := kinds(evs), []string{"started", "tool_start", "tool_end", "text_delta", "text_delta", "completed"}; !slices.Equal(got, want) {
		t.Fatalf("events = %v, want %v", got, want)
	}
	if evs[1].Tool.Name != "Write" || evs[1].Tool.CallID != "toolu_1" || evs[1].Tool.FirstArg != target {
		t.Fatalf("tool_start = %+v", evs[1].Tool)
	}
	if last := evs[len(evs)-1]; last.Output != "Done: out.txt written." || last.JobID != "job-w" {
		t.Fatalf("completed = %+v", last)
	}
	data, err := os.ReadFile(target)
	if err != nil || string(data) != "engine's text\n" {
		t.Fatalf("file = %q, %v; want the engine's input written", data, err)
	}
	// The requests crossed whole: model, agent, system prompt, prompt, offered tools.
	first := host.requests[0]
	var tools []string
	for _, s := range first.Tools {
		tools = append(tools, s.Name)
	}
	if first.Model != "claude-x" || first.Agent != "general-purpose" || first.Messages[0].Text() != "sys" ||
		first.Messages[1].Text() != "write out.txt" || !slices.Equal(tools, []string{"Read", "Write"}) && !slices.Equal(tools, []string{"Write", "Read"}) {
		t.Fatalf("first request = %+v (tools %v)", first, tools)
	}
	if len(first.Tools[0].InputSchema) == 0 {
		t.Fatal("tool schemas lost their input schema on the wire")
	}
	// The call crossed with its id and the model's input; the local result came back;
	// the model saw the engine's final word.
	if c := host.calls[0]; c.ID != "toolu_1" || c.Name != "Write" || !strings.Contains(string(c.Input), "model's text") {
		t.Fatalf("RunTool call = %+v", c)
	}
	if len(host.execs) != 1 || !host.execs[0].Success {
		t.Fatalf("local results = %+v", host.execs)
	}
	tr, _ := host.requests[1].Messages[len(host.requests[1].Messages)-1].ToolResult()
	if tr.IsError || !strings.HasSuffix(tr.Content, "[checked by the engine]") {
		t.Fatalf("the model saw %+v, want the engine's final result", tr)
	}
}

func TestAgentJobOverTheWireDeniedToolNeverRuns(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "secret.txt")
	host := &engineHost{
		script: []llm.ChatResponse{
			toolTurn("c1", "Write", map[string]string{"file_path": target, "content": "x"}),
			textTurn("Could not write."),
		},
		decide: func(runnerapi.ToolCall) (string, json.RawMessage) { return "matched deny rule Write", nil },
	}
	evs := start(t, dispenseWorker(t, worker.New(nil)), runnerapi.Job{ID: "job-d", Host: host,
		Agent: &runnerapi.AgentJob{Prompt: "write", Cwd: dir}})
	if _, err := os.Stat(target); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("denied Write left a file (stat: %v)", err)
	}
	if len(host.execs) != 0 {
		t.Fatalf("the tool ran after a denial: %+v", host.execs)
	}
	if end := evs[2]; end.Kind != runnerapi.EventToolEnd || !strings.Contains(end.Tool.Error, "matched deny rule Write") {
		t.Fatalf("tool_end = %+v", evs[2])
	}
	if last := evs[len(evs)-1]; last.Kind != runnerapi.EventCompleted || last.Output != "Could not write." {
		t.Fatalf("terminal = %+v", last)
	}
}

func TestAgentJobOverTheWireCancelAbortsTheEnginesModelCall(t *testing.T) {
	host := &engineHost{blockChat: true, chatEnded: make(chan error, 1)}
	r := dispenseWorker(t, worker.New(nil))
	done := make(chan []runnerapi.Event, 1)
	go func() {
		var evs []runnerapi.Event
		_ = r.Start(context.Background(), runnerapi.Job{ID: "job-c", Host: host, Agent: &runnerapi.AgentJob{Prompt: "p", Cwd: t.TempDir()}},
			func(ev runnerapi.Event) error { evs = append(evs, ev); return nil })
		done <- evs
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		host.mu.Lock()
		asked := len(host.requests)
		host.mu.Unlock()
		if asked > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the job never reached the engine's model")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if running, err := r.Cancel(context.Background(), "job-c", "stopped by user"); err != nil || !running {
		t.Fatalf("Cancel = %v, %v", running, err)
	}
	select {
	case err := <-host.chatEnded:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the engine's model call ended with %v, want it cancelled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the engine's model call outlived the cancelled job")
	}
	select {
	case evs := <-done:
		if last := evs[len(evs)-1]; last.Kind != runnerapi.EventCancelled || last.Reason != "stopped by user" {
			t.Fatalf("terminal = %+v", last)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled job did not end")
	}
}

func TestAgentJobOverTheWireProviderErrorKeepsItsClass(t *testing.T) {
	host := &engineHost{} // no script: the first call is rate limited
	evs := start(t, dispenseWorker(t, worker.New(nil)), runnerapi.Job{ID: "job-e", Host: host,
		Agent: &runnerapi.AgentJob{Prompt: "p", Cwd: t.TempDir()}})
	last := evs[len(evs)-1]
	if last.Kind != runnerapi.EventFailed || last.Category != string(llm.CategoryProvider) || !last.Recoverable ||
		!strings.Contains(last.Error, "anthropic: slow down: 429") {
		t.Fatalf("terminal = %+v, want the rate limit with its words and class", last)
	}
}

func TestAgentJobsShareOneHostServicePerWorker(t *testing.T) {
	r := dispenseWorker(t, worker.New(nil))
	var wg sync.WaitGroup
	hosts := make([]*engineHost, 3)
	results := make([][]runnerapi.Event, 3)
	for i := range hosts {
		hosts[i] = &engineHost{script: []llm.ChatResponse{textTurn("answer " + string(rune('A'+i)))}}
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = start(t, r, runnerapi.Job{ID: "job-" + string(rune('a'+i)), Host: hosts[i],
				Agent: &runnerapi.AgentJob{Prompt: "p" + string(rune('a'+i)), Cwd: t.TempDir()}})
		}()
	}
	wg.Wait()
	for i, h := range hosts {
		if len(h.requests) != 1 || h.requests[0].Messages[0].Text() != "p"+string(rune('a'+i)) {
			t.Fatalf("host %d got %+v; each job's calls must reach its own host", i, h.requests)
		}
		if last := results[i][len(results[i])-1]; last.Output != "answer "+string(rune('A'+i)) {
			t.Fatalf("job %d ended %+v", i, last)
		}
	}
	// A later job reuses the same service.
	h := &engineHost{script: []llm.ChatResponse{textTurn("again")}}
	if evs := start(t, r, runnerapi.Job{ID: "job-a", Host: h, Agent: &runnerapi.AgentJob{Prompt: "p", Cwd: t.TempDir()}}); evs[len(evs)-1].Output != "again" {
		t.Fatalf("a reused job id ended %+v", evs[len(evs)-1])
	}
}

func TestAgentJobWithoutHostIsRefusedBeforeTheWorker(t *testing.T) {
	err := dispenseWorker(t, worker.New(nil)).Start(context.Background(), runnerapi.Job{ID: "x", Agent: &runnerapi.AgentJob{Prompt: "p"}},
		func(runnerapi.Event) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "needs a Host") {
		t.Fatalf("Start without a host = %v", err)
	}
}

// go-plugin's broker forgets an address nobody dials within 5 s. A first agent job the
// worker refused before dialling (here: no job id) leaves the engine's host service
// unreachable; the next job must still run, on a fresh one.
func TestAgentJobAfterAnUndialledHostServiceStillRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out the broker's 5 s timeouts")
	}
	r := dispenseWorker(t, worker.New(nil))
	err := r.Start(context.Background(), runnerapi.Job{Host: &engineHost{}, Agent: &runnerapi.AgentJob{Prompt: "p"}},
		func(runnerapi.Event) error { return nil })
	if err == nil {
		t.Fatal("a job without an id was accepted")
	}
	time.Sleep(5500 * time.Millisecond) // the broker drops the address nobody dialled
	h := &engineHost{script: []llm.ChatResponse{textTurn("still here")}}
	evs := start(t, r, runnerapi.Job{ID: "late", Host: h, Agent: &runnerapi.AgentJob{Prompt: "p", Cwd: t.TempDir()}})
	if last := evs[len(evs)-1]; last.Kind != runnerapi.EventCompleted || last.Output != "still here" {
		t.Fatalf("terminal = %+v", last)
	}
}

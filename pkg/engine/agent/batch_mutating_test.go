package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/tools/fs"
	"github.com/robota-sdk/robota-go/pkg/tools/workspace"
)

// safeTool is a funcTool that declares itself concurrency-safe (read-only).
type safeTool struct{ funcTool }

func (safeTool) ConcurrencySafe(json.RawMessage) bool { return true }

// toolCallsResponse answers with the given tool calls.
func toolCallsResponse(calls ...llm.ToolCall) llm.ChatResponse {
	parts := make([]llm.Part, len(calls))
	for i, c := range calls {
		parts[i] = llm.ToolUsePart(c)
	}
	return llm.ChatResponse{Message: llm.Message{Role: llm.RoleAssistant, Content: parts}, StopReason: llm.StopReasonToolUse}
}

// Issue 10 §1: twenty Edit calls to one file in one message, each replacing a distinct
// line, all land on disk and every result reports success, in request order. Before the
// batch serialized mutating calls, the twenty edits read the same old file and the last
// rename won while every call reported success.
func TestBatchTwentyEditsOfOneFileAllLand(t *testing.T) {
	const n = 20
	dir := t.TempDir()
	path := filepath.Join(dir, "f.txt")
	var orig strings.Builder
	for i := range n {
		fmt.Fprintf(&orig, "line %02d old\n", i)
	}
	if err := os.WriteFile(path, []byte(orig.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	edit, err := fs.NewEdit(ws)
	if err != nil {
		t.Fatal(err)
	}
	read, err := fs.NewRead(ws)
	if err != nil {
		t.Fatal(err)
	}
	var calls []llm.ToolCall
	for i := range n {
		in, _ := json.Marshal(map[string]string{
			"file_path": path, "old_string": fmt.Sprintf("line %02d old", i), "new_string": fmt.Sprintf("line %02d new", i),
		})
		calls = append(calls, llm.ToolCall{ID: fmt.Sprintf("e%02d", i), Name: "Edit", Input: in})
	}
	p := &funcProvider{}
	p.reply = func(_ context.Context, n int, _ llm.ChatRequest, _ llm.Callbacks) (llm.ChatResponse, error) {
		if n == 1 {
			return toolCallsResponse(calls...), nil
		}
		return textResponse("done"), nil
	}
	a := newAgent(t, agent.Config{Provider: p, Tools: []llm.Tool{read, edit}})
	res := mustRun(t, a, context.Background(), "edit", agent.RunOptions{})
	if res.StopReason != agent.StopCompleted {
		t.Fatalf("stop = %s", res.StopReason)
	}
	results := toolMessages(a.History())
	if len(results) != n {
		t.Fatalf("%d tool results, want %d", len(results), n)
	}
	for i, r := range results {
		if r.ToolCallID != calls[i].ID || r.IsError || !strings.Contains(r.Content, "has been updated") {
			t.Fatalf("result %d = %+v; want success for %s in request order", i, r, calls[i].ID)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.ReplaceAll(orig.String(), " old\n", " new\n")
	if string(got) != want {
		t.Fatalf("file after 20 edits:\n%s\nwant:\n%s", got, want)
	}
}

// Read-only calls still run at the same time; a mutating call runs alone, after the calls
// requested before it and before those after it, and the results stay in request order.
func TestBatchReadOnlyConcurrentMutatingAlone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := newGate()
		var mu sync.Mutex
		var log []string
		track := func(name string) func(context.Context, json.RawMessage) llm.ToolResult {
			return func(ctx context.Context, args json.RawMessage) llm.ToolResult {
				mu.Lock()
				log = append(log, "start "+name+string(args))
				mu.Unlock()
				res := gate.run(ctx, args)
				mu.Lock()
				log = append(log, "end "+name+string(args))
				mu.Unlock()
				return res
			}
		}
		reader := safeTool{funcTool{name: "Look", fn: track("Look")}}
		writer := funcTool{name: "Change", fn: track("Change")}
		order := []string{"Look", "Look", "Look", "Change", "Change", "Look", "Look"}
		var calls []llm.ToolCall
		for i, name := range order {
			calls = append(calls, llm.ToolCall{ID: fmt.Sprintf("c%d", i), Name: name, Input: json.RawMessage(fmt.Sprintf(`{"i":%d}`, i))})
		}
		p := &funcProvider{}
		p.reply = func(_ context.Context, n int, _ llm.ChatRequest, _ llm.Callbacks) (llm.ChatResponse, error) {
			if n == 1 {
				return toolCallsResponse(calls...), nil
			}
			return textResponse("fin"), nil
		}
		a := newAgent(t, agent.Config{Provider: p, Tools: []llm.Tool{reader, writer}})
		done := make(chan agent.Result)
		go func() { res, _ := a.Run(context.Background(), "go", agent.RunOptions{}); done <- res }()
		// Groups: three reads at once, each write alone, two reads at once.
		for _, group := range []int{3, 1, 1, 2} {
			for k := range group {
				synctest.Wait()
				if got := gate.running(); got != group-k {
					t.Fatalf("group of %d after %d releases: %d running, want %d (log %v)", group, k, got, group-k, log)
				}
				gate.release <- struct{}{}
			}
		}
		res := <-done
		if gate.maxActive() != 3 {
			t.Fatalf("max active = %d, want 3 (the three leading reads together)", gate.maxActive())
		}
		results := toolMessages(a.History())
		if len(results) != len(order) {
			t.Fatalf("tool messages = %d", len(results))
		}
		for i, r := range results {
			if r.ToolCallID != calls[i].ID || r.Content != fmt.Sprintf(`ran {"i":%d}`, i) {
				t.Fatalf("result %d = %+v; want request order", i, r)
			}
		}
		if len(res.ToolsExecuted) != len(order) {
			t.Fatalf("toolsExecuted = %v", res.ToolsExecuted)
		}
		// Each Change starts after every earlier call ended and ends before any later one starts.
		for i, entry := range log {
			if !strings.HasPrefix(entry, "start Change") {
				continue
			}
			if log[i+1] != "end Change"+strings.TrimPrefix(entry, "start Change") {
				t.Fatalf("a call ran during a mutating call: %v", log)
			}
		}
	})
}

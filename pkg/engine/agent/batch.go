package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"sync"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

type toolOutcome struct {
	result   llm.ToolResult
	executed bool // the tool ran (not unknown, not skipped by abort)
	unknown  bool
}

// executeAndRecord runs one round's tool calls as a batch and appends one tool message per
// call in request order, applying the tool-result budget. It returns the names of
// requested tools that are not registered.
func (r *run) executeAndRecord(ctx context.Context, calls []llm.ToolCall) (unknown []string, stop string) {
	batchID := r.a.cfg.NewID()
	limit := r.concurrency(len(calls))
	names := make([]string, len(calls))
	for i, c := range calls {
		names[i] = c.Name
	}
	r.em.emit(r.round, Event{Type: EventToolBatchStarted, Batch: &BatchData{
		BatchID: batchID, Mode: string(r.a.cfg.BatchMode), MaxConcurrency: limit,
		RequestCount: len(calls), Tools: names,
	}})
	for i, c := range calls {
		r.em.emit(r.round, Event{Type: EventToolExecutionRequest, Tool: &ToolEventData{
			BatchID: batchID, Index: i, ToolName: c.Name, ToolCallID: c.ID,
			Parameters: c.Input, OwnerPath: r.ownerPath(c.ID),
		}})
	}
	outcomes := r.runBatch(ctx, batchID, calls, limit)

	overflowed := false
	for i, c := range calls {
		o := outcomes[i]
		res := o.result
		if overflowed {
			res = llm.ToolResult{Error: ContextSkippedToolText, Metadata: map[string]any{"errorCode": ErrorCodeContextSkipped}}
		}
		m := r.a.factory.Tool(llm.ToolResultPart{
			ToolCallID: c.ID, ToolName: c.Name, Content: res.ModelContent(), IsError: !res.Success,
		}, maps.Clone(res.Metadata))
		r.a.store.Append(m)
		r.em.emit(r.round, Event{Type: EventToolMessageCommitted, Tool: &ToolEventData{
			BatchID: batchID, Index: i, ToolName: c.Name, ToolCallID: c.ID,
		}, Message: &m})
		if !overflowed && r.toolBudgetExceeded() {
			overflowed = true
		}
		if o.executed {
			r.result.ToolsExecuted = append(r.result.ToolsExecuted, c.Name)
		}
		if o.unknown {
			unknown = appendUnique(unknown, c.Name)
		}
		if why, _ := res.Metadata[MetaStopRun].(string); why != "" && stop == "" {
			stop = why
		}
	}
	return unknown, stop
}

// concurrency is the number of tools that may run at once in a batch of n.
func (r *run) concurrency(n int) int {
	switch {
	case r.a.cfg.BatchMode == BatchSequential:
		return 1
	case r.a.cfg.MaxConcurrency == 0:
		return max(n, 1)
	case r.a.cfg.MaxConcurrency < 0:
		return 1
	default:
		return r.a.cfg.MaxConcurrency
	}
}

func (r *run) ownerPath(toolCallID string) []OwnerPathSegment {
	return []OwnerPathSegment{
		{OwnerType: "agent", OwnerID: r.a.cfg.ConversationID},
		{OwnerType: "execution", OwnerID: r.em.executionID},
		{OwnerType: "tool", OwnerID: toolCallID},
	}
}

// ConcurrencySafe is implemented by tools whose calls may run at the same time as other
// calls of the same batch: calls that only read (Read, Glob, Grep, web fetches). A tool
// that does not implement it, or answers false for a call, is treated as mutating: it
// runs alone, after every call requested before it has finished and before any call
// requested after it starts (Claude Code's rule), so two edits of one file never race.
// Wrappers (the permission enforcer) forward the answer of the tool they wrap.
type ConcurrencySafe interface {
	ConcurrencySafe(args json.RawMessage) bool
}

// concurrencySafe reports whether a call may share the batch with others.
func concurrencySafe(tool llm.Tool, c llm.ToolCall) bool {
	cs, ok := tool.(ConcurrencySafe)
	return ok && cs.ConcurrencySafe(c.Input)
}

// runBatch executes calls in request order as a sequence of groups: a run of consecutive
// concurrency-safe calls runs at once (at most limit at a time), a mutating call runs
// alone. Once ctx is cancelled, tools not yet started get InterruptedToolText.
func (r *run) runBatch(ctx context.Context, batchID string, calls []llm.ToolCall, limit int) []toolOutcome {
	outcomes := make([]toolOutcome, len(calls))
	sem := make(chan struct{}, limit)
	var wg sync.WaitGroup
	finish := func(i int, o toolOutcome) {
		outcomes[i] = o
		res := o.result
		c := calls[i]
		r.em.emit(r.round, Event{Type: EventToolExecutionResult, Tool: &ToolEventData{
			BatchID: batchID, Index: i, ToolName: c.Name, ToolCallID: c.ID, Result: &res,
		}})
	}
	for i, c := range calls {
		tool, ok := r.a.tools[c.Name]
		if !ok {
			finish(i, toolOutcome{result: r.unknownToolResult(c.Name), unknown: true})
			continue
		}
		safe := concurrencySafe(tool, c)
		if !safe {
			wg.Wait() // everything requested before a mutating call has finished
		}
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			finish(i, toolOutcome{result: llm.ToolResult{
				Error: InterruptedToolText, Metadata: map[string]any{"errorCode": ErrorCodeInterrupted},
			}})
			continue
		}
		wg.Add(1)
		go func(i int, c llm.ToolCall, tool llm.Tool) {
			defer wg.Done()
			defer func() { <-sem }()
			finish(i, toolOutcome{result: executeTool(ctx, tool, c), executed: true})
		}(i, c, tool)
		if !safe {
			wg.Wait() // and nothing requested after it starts before it has finished
		}
	}
	wg.Wait()
	return outcomes
}

func (r *run) unknownToolResult(name string) llm.ToolResult {
	available := append([]string(nil), r.a.names...)
	list := strings.Join(available, ", ")
	if list == "" {
		list = "(none)"
	}
	return llm.ToolResult{
		Error: fmt.Sprintf("Error: tool %q was not executed because it is not registered. Available tools: %s.", name, list),
		Metadata: map[string]any{
			"errorCode":      ErrorCodeUnknownTool,
			"requestedTool":  name,
			"availableTools": available,
		},
	}
}

// executeTool runs one tool; a panicking tool becomes a failed result.
func executeTool(ctx context.Context, tool llm.Tool, c llm.ToolCall) (res llm.ToolResult) {
	defer func() {
		if p := recover(); p != nil {
			res = llm.ToolResult{Error: fmt.Sprintf("Error: tool %s failed unexpectedly: %v", c.Name, p)}
		}
	}()
	input := c.Input
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	return tool.Execute(llm.WithToolCall(ctx, llm.ToolCallInfo{ID: c.ID, Name: c.Name}), input)
}

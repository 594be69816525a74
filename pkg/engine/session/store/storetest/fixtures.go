package storetest

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
)

// Clock is a settable clock for deterministic timestamps.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock reading start.
func NewClock(start time.Time) *Clock { return &Clock{now: start} }

// Now reads the clock.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// Epoch is the start time of every suite clock.
var Epoch = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// SampleRecord returns a record with every field set, deterministic for id.
func SampleRecord(id string) store.Record {
	f := llm.Factory{NewID: func() string { return id + "-msg" }, Now: func() time.Time { return Epoch }}
	call := llm.ToolCall{ID: "call_0", Name: "Read", Input: json.RawMessage(`{"file_path":"/tmp/x"}`)}
	return store.Record{
		ID:   id,
		Cwd:  "/work/project",
		Name: "sample " + id,
		Messages: []llm.Message{
			f.System("You are a test."),
			f.User("read the file"),
			f.Assistant([]llm.Part{llm.TextPart("Reading."), llm.ToolUsePart(call)}, llm.StateComplete),
			f.Tool(llm.ToolResultPart{ToolCallID: "call_0", ToolName: "Read", Content: "hello"}, nil),
		},
		Events:                   []store.Event{{After: 2, Entry: json.RawMessage(`{"id":"e1","category":"event","type":"skill","data":{"name":"review"}}`)}},
		SystemPrompt:             "You are a test.",
		ToolSchemas:              []llm.ToolSchema{{Name: "Read", Description: "read a file", InputSchema: json.RawMessage(`{"type":"object"}`)}},
		BackgroundTasks:          []json.RawMessage{json.RawMessage(`{"id":"t1","status":"running"}`)},
		BackgroundTaskEvents:     []json.RawMessage{json.RawMessage(`{"taskId":"t1","type":"started"}`)},
		BackgroundJobGroups:      []json.RawMessage{json.RawMessage(`{"id":"g1"}`)},
		BackgroundJobGroupEvents: []json.RawMessage{json.RawMessage(`{"groupId":"g1","type":"created"}`)},
		MemoryEvents:             []json.RawMessage{json.RawMessage(`{"type":"saved"}`)},
		UsedMemoryReferences:     []json.RawMessage{json.RawMessage(`{"topic":"style"}`)},
		ContextReferences:        []json.RawMessage{json.RawMessage(`{"path":"AGENTS.md"}`)},
		SandboxSnapshotID:        "snap-1",
		Extra:                    map[string]json.RawMessage{"provider": json.RawMessage(`{"name":"script","model":"m1"}`)},
	}
}

// Round returns the messages of tool round n of a conversation: an assistant message
// calling a tool and the tool's result, both naming n.
func Round(n int) []llm.Message {
	f := llm.Factory{NewID: func() string { return fmt.Sprintf("r%d", n) }, Now: func() time.Time { return Epoch }}
	call := llm.ToolCall{ID: fmt.Sprintf("call_%d", n), Name: "Read", Input: json.RawMessage(fmt.Sprintf(`{"file_path":"/tmp/%d"}`, n))}
	return []llm.Message{
		f.Assistant([]llm.Part{llm.TextPart(fmt.Sprintf("round %d <a & b>", n)), llm.ToolUsePart(call)}, llm.StateComplete),
		f.Tool(llm.ToolResultPart{ToolCallID: call.ID, ToolName: "Read", Content: fmt.Sprintf("content %d", n)}, nil),
	}
}

// InvalidIDs are IDs every store must reject with ErrInvalidID.
var InvalidIDs = []string{"", ".", "..", "../escape", "a/b", `a\b`, "/abs", ".hidden", "a..b",
	"nul\x00", "sp ace", "ünï", string(make([]byte, 129))}

// Conversation returns a deterministic history of n messages shaped like a long coding
// session: a system message, then tool rounds (an assistant message calling Read or Bash,
// and a tool result of about 2 KB of code-like text), with a user prompt and an answer
// every 20 messages. One result in 25 mentions credentials (an "api_key" setting), so
// redaction has work. It is the benchmarks' 10k-message session.
func Conversation(n int) []llm.Message {
	f := llm.Factory{NewID: func() string { return "" }, Now: func() time.Time { return Epoch }}
	var code strings.Builder
	for i := range 40 {
		fmt.Fprintf(&code, "func handler%02d(w http.ResponseWriter, r *http.Request) { if r == nil { return } }\n", i)
	}
	body := code.String()
	msgs := make([]llm.Message, 0, n)
	msgs = append(msgs, f.System("You are a coding agent. Follow the project's conventions."))
	for i := 1; len(msgs) < n; i++ {
		id := fmt.Sprintf("m%06d", len(msgs))
		var m llm.Message
		switch {
		case i%20 == 0:
			m = f.User(fmt.Sprintf("Step %d: now refactor the handlers in pkg/server/h%d.go and run the tests.", i, i))
		case i%20 == 19:
			m = f.Assistant([]llm.Part{llm.TextPart(fmt.Sprintf("Done with step %d: the handlers return early on nil requests.", i))}, llm.StateComplete)
		case i%2 == 1:
			call := llm.ToolCall{ID: fmt.Sprintf("call_%d", i), Name: "Read",
				Input: json.RawMessage(fmt.Sprintf(`{"file_path":"/work/project/pkg/server/h%d.go"}`, i))}
			m = f.Assistant([]llm.Part{llm.TextPart("Reading the next file."), llm.ToolUsePart(call)}, llm.StateComplete)
			m.Usage = &llm.Usage{InputTokens: 1000 + i, OutputTokens: 40}
		default:
			content := body
			if i%25 == 0 {
				content += "config: api_key=abc123def456 region=eu\n"
			}
			m = f.Tool(llm.ToolResultPart{ToolCallID: fmt.Sprintf("call_%d", i-1), ToolName: "Read", Content: content}, nil)
		}
		m.ID = id
		msgs = append(msgs, m)
	}
	return msgs
}

// SmallRounds returns a deterministic history of n messages made of small tool rounds (an
// assistant message reading a one-line file, and the line), the shape of a long session
// of quick steps: about 250 bytes a message, so 10,000 messages stay within a 1M-token
// context window.
func SmallRounds(n int) []llm.Message {
	f := llm.Factory{NewID: func() string { return "" }, Now: func() time.Time { return Epoch }}
	msgs := make([]llm.Message, 0, n)
	msgs = append(msgs, f.System("You are a coding agent."), f.User("Read every file of the project, one at a time."))
	for i := 0; len(msgs) < n; i++ {
		var m llm.Message
		if i%2 == 0 {
			call := llm.ToolCall{ID: fmt.Sprintf("call_%d", i), Name: "Read", Input: json.RawMessage(fmt.Sprintf(`{"file_path":"/p/f%d.txt"}`, i/2))}
			m = f.Assistant([]llm.Part{llm.ToolUsePart(call)}, llm.StateComplete)
		} else {
			m = f.Tool(llm.ToolResultPart{ToolCallID: fmt.Sprintf("call_%d", i-1), ToolName: "Read", Content: fmt.Sprintf("     1\tline of file %d", i/2)}, nil)
		}
		m.ID = fmt.Sprintf("m%06d", len(msgs))
		msgs = append(msgs, m)
	}
	return msgs
}

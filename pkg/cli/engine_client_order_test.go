package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/robota-sdk/robota-go/pkg/cli/output"
	"github.com/robota-sdk/robota-go/pkg/client"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/runner/worker"
)

// A --engine client that falls behind the engine (it gets to the Agent call's
// tool_start only after the prompt has ended there) still prints the subagent's lines
// between the Agent call and its result, as in-process: the history it syncs at an
// event stops at the entry that event follows.
func TestEngineClientBehindTheEngineKeepsTheLinesInOrder(t *testing.T) {
	addr := socketEngineRunning(t, worker.New(hclog.NewNullLogger()))

	proj := t.TempDir()
	if err := os.WriteFile(filepath.Join(proj, "notes.txt"), []byte("remember the milk\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	script := `turns:
  - text: "Asking a helper."
    toolCalls: [{id: toolu_agent, name: Agent, input: {description: "read notes", prompt: "read the notes", subagent_type: general-purpose}}]
  - when: {lastToolResultContains: "the notes say milk"}
    text: "The helper says milk."
agents:
  general-purpose:
    - toolCalls: [{id: toolu_sub_read, name: Read, input: {file_path: "` + filepath.Join(proj, "notes.txt") + `"}}]
    - when: {lastToolResultContains: "milk"}
      text: "the notes say milk"
`
	if err := os.WriteFile(filepath.Join(proj, "s.yaml"), []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := client.Dial(addr, client.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	info, err := c.CreateSession(ctx, client.SessionOptions{Cwd: proj, Provider: "script", Script: "s.yaml", PermissionMode: "bypassPermissions"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.Submit(ctx, info.ID, "what do the notes say?")
	if err != nil {
		t.Fatal(err)
	}
	// The whole prompt runs in the engine before the client handles its first event.
	var events []client.Event
	for {
		e, err := p.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, e)
		if e.Type == client.EventComplete || e.Type == client.EventError || e.Type == client.EventInterrupted {
			break
		}
	}
	var out bytes.Buffer
	r := &engineRun{c: c, id: info.ID, out: output.New(&out, output.FormatStreamJSON, llm.NewID), stderr: io.Discard}
	for _, e := range events {
		if err := r.handle(ctx, e); err != nil {
			t.Fatal(err)
		}
	}

	// Each line: who wrote it (main or sub) and what it holds.
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var l struct {
			Type    string  `json:"type"`
			Parent  *string `json:"parent_tool_use_id"`
			Message struct {
				Content []struct {
					Type, Text, ID, ToolUseID string
				} `json:"content"`
			} `json:"message"`
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		who := "main"
		if l.Parent != nil {
			who = "sub"
		}
		for _, part := range l.Message.Content {
			got = append(got, who+" "+part.Type+" "+part.Text+part.ID)
		}
	}
	order := func(prefix string) int {
		for i, s := range got {
			if strings.HasPrefix(s, prefix) {
				return i
			}
		}
		t.Fatalf("no line %q in:\n%s", prefix, strings.Join(got, "\n"))
		return -1
	}
	call, sub, result, answer := order("main tool_use toolu_agent"), order("sub text the notes say milk"), order("main tool_result"), order("main text The helper says milk.")
	if call >= sub || sub >= result || result >= answer {
		t.Fatalf("lines out of order (Agent call %d, subagent answer %d, Agent result %d, final answer %d):\n%s",
			call, sub, result, answer, strings.Join(got, "\n"))
	}
}

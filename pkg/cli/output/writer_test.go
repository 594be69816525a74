package output

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

var update = flag.Bool("update", false, "rewrite golden files")

func seqIDs() func() string {
	n := 0
	return func() string { n++; return fmt.Sprintf("uuid-%d", n) }
}

// scriptedRun feeds a two-tool run with one denial and a compaction.
func scriptedRun(w *Writer) error {
	w.Init(Init{SessionID: "s-1", Cwd: "/proj", Model: "script-model", Tools: []string{"Bash", "Read"}, PermissionMode: "default"})
	w.Message(llm.Message{Role: llm.RoleUser, Content: []llm.Part{llm.TextPart("fix it")}})
	w.Message(llm.Message{ID: "m-1", Role: llm.RoleAssistant, Metadata: map[string]any{"model": "script-model"},
		Usage: &llm.Usage{InputTokens: 120, OutputTokens: 12, CacheReadInputTokens: 100},
		Content: []llm.Part{
			llm.ThinkingPart("look first", "sig"),
			llm.TextPart("Reading."),
			llm.ToolUsePart(llm.ToolCall{ID: "call_0", Name: "Read", Input: json.RawMessage(`{"file_path":"/proj/a.go"}`)}),
			llm.ToolUsePart(llm.ToolCall{ID: "call_1", Name: "Bash", Input: json.RawMessage(`{"command":"rm -rf /"}`)}),
		}})
	w.Message(llm.Message{Role: llm.RoleTool, Content: []llm.Part{llm.ToolResultContent(llm.ToolResultPart{ToolCallID: "call_0", Content: "1\tpackage a"})}})
	w.Message(llm.Message{Role: llm.RoleTool, Content: []llm.Part{llm.ToolResultContent(llm.ToolResultPart{ToolCallID: "call_1", Content: "Permission denied", IsError: true})}})
	w.CompactBoundary("auto", 170000)
	w.Message(llm.Message{ID: "m-2", Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart("Done.")}})
	return w.Result(Result{Subtype: SubtypeSuccess, DurationMS: 42, NumTurns: 2, Text: "Done.",
		Usage:             llm.Usage{InputTokens: 300, OutputTokens: 30, CacheReadInputTokens: 100},
		PermissionDenials: []PermissionDenial{{ToolName: "Bash", ToolUseID: "call_1", ToolInput: json.RawMessage(`{"command":"rm -rf /"}`)}},
		StopReason:        "end_turn", Model: "script-model", ContextWindow: 200000})
}

func TestFormatsAgainstGoldens(t *testing.T) {
	for _, f := range []Format{FormatText, FormatJSON, FormatStreamJSON} {
		t.Run(string(f), func(t *testing.T) {
			var buf bytes.Buffer
			if err := scriptedRun(New(&buf, f, seqIDs())); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", string(f)+".golden")
			if *update {
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Fatalf("output differs from %s:\n got:\n%s\nwant:\n%s", golden, buf.Bytes(), want)
			}
		})
	}
}

// TestStreamJSONShapes checks the fields tools reading `claude -p` rely on,
// independently of the golden file.
func TestStreamJSONShapes(t *testing.T) {
	var buf bytes.Buffer
	if err := scriptedRun(New(&buf, FormatStreamJSON, seqIDs())); err != nil {
		t.Fatal(err)
	}
	var lines []map[string]any
	dec := json.NewDecoder(&buf)
	for dec.More() {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, m)
	}
	kinds := []string{}
	for _, l := range lines {
		k := l["type"].(string)
		if st, ok := l["subtype"].(string); ok && k == "system" {
			k += "/" + st
		}
		kinds = append(kinds, k)
		if l["session_id"] != "s-1" {
			t.Errorf("%s line lacks session_id", k)
		}
	}
	// One assistant line per content block (thinking, text, two tool calls), as Claude Code.
	want := []string{"system/init", "assistant", "assistant", "assistant", "assistant", "user", "user", "system/compact_boundary", "assistant", "result"}
	if fmt.Sprint(kinds) != fmt.Sprint(want) {
		t.Fatalf("line kinds = %v, want %v", kinds, want)
	}
	res := lines[len(lines)-1]
	for _, k := range []string{"subtype", "is_error", "num_turns", "result", "duration_ms", "usage", "permission_denials", "session_id"} {
		if _, ok := res[k]; !ok {
			t.Errorf("result lacks %s", k)
		}
	}
	denials := res["permission_denials"].([]any)
	if len(denials) != 1 || denials[0].(map[string]any)["tool_name"] != "Bash" {
		t.Fatalf("permission_denials = %v", denials)
	}
	usage := res["usage"].(map[string]any)
	if usage["input_tokens"] != float64(200) || usage["cache_read_input_tokens"] != float64(100) {
		t.Fatalf("usage = %v: input_tokens must exclude cached input", usage)
	}
	for i, want := range []string{"thinking", "text", "tool_use", "tool_use"} {
		msg := lines[1+i]["message"].(map[string]any)
		content := msg["content"].([]any)
		if len(content) != 1 || content[0].(map[string]any)["type"] != want || msg["id"] != "m-1" {
			t.Fatalf("assistant line %d: id %v content %v, want one %s block of m-1", i, msg["id"], content, want)
		}
	}
}

type failingWriter struct{ n int }

func (f *failingWriter) Write(p []byte) (int, error) {
	f.n++
	return 0, errors.New("broken pipe")
}

func TestWriteErrorIsReportedOnce(t *testing.T) {
	fw := &failingWriter{}
	err := scriptedRun(New(fw, FormatStreamJSON, seqIDs()))
	if err == nil || fw.n != 1 {
		t.Fatalf("err = %v after %d writes; want the first error and no further writes", err, fw.n)
	}
}

func TestParseFormat(t *testing.T) {
	for _, s := range []string{"text", "json", "stream-json"} {
		if _, err := ParseFormat(s); err != nil {
			t.Errorf("ParseFormat(%q) = %v", s, err)
		}
	}
	if _, err := ParseFormat("yaml"); err == nil {
		t.Error("ParseFormat(yaml) accepted")
	}
}

// A subagent's messages carry the Agent call's id as parent_tool_use_id; the session's own
// carry null, as Claude Code writes them.
func TestSubagentMessagesNameTheirParentCall(t *testing.T) {
	var buf bytes.Buffer
	w := New(&buf, FormatStreamJSON, seqIDs())
	w.Init(Init{SessionID: "s-1"})
	w.Message(llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart("parent")}})
	w.SubagentMessage(llm.Message{Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart("child")}}, "toolu_9")
	w.SubagentMessage(llm.NewToolMessage(llm.ToolResultPart{ToolCallID: "c1", Content: "ok"}, nil), "toolu_9")
	var parents []any
	dec := json.NewDecoder(&buf)
	for dec.More() {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		if m["type"] == "system" {
			continue
		}
		p, present := m["parent_tool_use_id"]
		if !present {
			t.Fatalf("%v line lacks parent_tool_use_id", m["type"])
		}
		parents = append(parents, p)
	}
	if fmt.Sprint(parents) != "[<nil> toolu_9 toolu_9]" {
		t.Fatalf("parent_tool_use_id values %v", parents)
	}
}

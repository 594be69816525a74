package sessionlog_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
	"github.com/robota-sdk/robota-go/pkg/providers/script"
)

// roundScript answers every chat request with one Read call (a small tool round) and the
// forced final summary with text. Usage is given so the provider does not size the request.
const roundScript = `
turns:
  - text: "Next file."
    toolCalls: [{id: call_0, name: Read, input: {file_path: /src/a.txt}}]
    usage: {inputTokens: 1000, outputTokens: 20}
    repeat: true
  - when: {purpose: final_summary}
    text: "Done."
    usage: {inputTokens: 1000, outputTokens: 5}
    repeat: true
`

type readTool struct{}

func (readTool) Schema() llm.ToolSchema {
	return llm.ToolSchema{Name: "Read", Description: "Reads a file.", InputSchema: json.RawMessage(`{"type":"object"}`)}
}

func (readTool) Execute(context.Context, json.RawMessage) llm.ToolResult {
	return llm.ToolSuccess("1\tpackage main")
}

// seedHistory is a conversation of about n messages made of small Read rounds.
func seedHistory(n int) []llm.Message {
	msgs := []llm.Message{llm.NewUserMessage("read every file")}
	for i := 0; len(msgs) < n; i++ {
		id := fmt.Sprintf("seed_%d", i)
		msgs = append(msgs,
			factory.Assistant([]llm.Part{llm.TextPart("Next file."), llm.ToolUsePart(llm.ToolCall{ID: id, Name: "Read",
				Input: json.RawMessage(`{"file_path":"/src/a.txt"}`)})}, llm.StateComplete),
			factory.Tool(llm.ToolResultPart{ToolCallID: id, ToolName: "Read", Content: "1\tpackage main"}, nil))
	}
	return msgs
}

func dirBytes(b *testing.B, dir string) int64 {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			n += info.Size()
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// rawAppend is the baseline: the same bytes the logger wrote (each log line and each
// payload file), appended one write per piece to one O_APPEND file.
func rawAppend(b *testing.B, pieces [][]byte) time.Duration {
	f, err := os.OpenFile(filepath.Join(b.TempDir(), "raw.jsonl"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	start := time.Now()
	for _, p := range pieces {
		if _, err := f.Write(p); err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(start)
}

// loggedPieces returns the log lines after offset and the payload files not in seen.
func loggedPieces(b *testing.B, l *sessionlog.FileLogger, offset int64, seen map[string]bool) [][]byte {
	data, err := os.ReadFile(l.Path())
	if err != nil {
		b.Fatal(err)
	}
	var pieces [][]byte
	for _, line := range bytes.SplitAfter(data[offset:], []byte("\n")) {
		if len(line) > 0 {
			pieces = append(pieces, line)
		}
	}
	payloads := filepath.Join(l.Dir(), sessionlog.PayloadDir(l.SessionID()))
	entries, _ := os.ReadDir(payloads)
	for _, e := range entries {
		if !seen[e.Name()] {
			p, err := os.ReadFile(filepath.Join(payloads, e.Name()))
			if err != nil {
				b.Fatal(err)
			}
			pieces = append(pieces, p)
		}
	}
	return pieces
}

// BenchmarkLogRound logs the replay events of small tool rounds (one Read call each) of a
// real agent run through the FileLogger, with 10, 1k and 10k messages of history before
// the run. Reported per round: bytes the logger wrote (lines and payload files) against
// the JSON size of the round's own new messages (bytes-x-of-new-content), and the time
// spent in Log against appending the same bytes raw (time-x-of-raw-append).
func BenchmarkLogRound(b *testing.B) {
	p, err := script.New([]byte(roundScript), "rounds.yaml")
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{10, 1000, 10000} {
		b.Run(fmt.Sprintf("history=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			l, err := sessionlog.Open(dir, "bench", sessionlog.Options{Now: func() time.Time { return epoch }})
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			a, err := agent.New(agent.Config{Provider: p, Tools: []llm.Tool{readTool{}}, History: seedHistory(n),
				ConversationID: "conv", ContextWindow: 100_000_000, Now: func() time.Time { return epoch }})
			if err != nil {
				b.Fatal(err)
			}
			var inLog time.Duration
			opts := agent.RunOptions{OnEvent: func(ev agent.Event) {
				start := time.Now()
				l.Log(string(ev.Type), ev)
				inLog += time.Since(start)
			}}
			// Warm-up: the agent's first request carries its whole history in any format.
			opts.MaxRounds = agent.Rounds(1)
			if _, err := a.Run(context.Background(), "warm up", opts); err != nil {
				b.Fatal(err)
			}
			if err := l.Sync(); err != nil {
				b.Fatal(err)
			}
			startBytes := dirBytes(b, dir)
			offset, _ := os.Stat(l.Path())
			seen := map[string]bool{}
			if entries, err := os.ReadDir(filepath.Join(dir, sessionlog.PayloadDir("bench"))); err == nil {
				for _, e := range entries {
					seen[e.Name()] = true
				}
			}
			before := a.Store().Len()
			inLog = 0
			opts.MaxRounds = agent.Rounds(b.N)
			b.ResetTimer()
			res, err := a.Run(context.Background(), "read them all", opts)
			b.StopTimer()
			if err != nil || res.Rounds != b.N {
				b.Fatalf("run: %v, %d rounds", err, res.Rounds)
			}
			if err := l.Sync(); err != nil {
				b.Fatal(err)
			}
			var newContent int
			for _, m := range a.History()[before:] {
				j, _ := json.Marshal(m)
				newContent += len(j)
			}
			written := dirBytes(b, dir) - startBytes
			raw := rawAppend(b, loggedPieces(b, l, offset.Size(), seen))
			b.ReportMetric(float64(written)/float64(b.N), "log-B/round")
			b.ReportMetric(float64(written)/float64(newContent), "bytes-x-of-new-content")
			b.ReportMetric(float64(inLog.Nanoseconds())/float64(b.N), "log-ns/round")
			b.ReportMetric(float64(inLog)/float64(raw), "time-x-of-raw-append")
		})
	}
}

// BenchmarkLogNativeRequest logs the SDK-native body of a request whose conversation has
// 10, 1k and 10k messages and one message the previous body did not have (as a provider
// reports it each round), against appending the bytes the logger wrote raw.
func BenchmarkLogNativeRequest(b *testing.B) {
	msg := func(i int) string {
		return fmt.Sprintf(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_%d","content":[{"type":"text","text":"1\tpackage main"}]}]}`, i)
	}
	for _, n := range []int{10, 1000, 10000} {
		b.Run(fmt.Sprintf("history=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			l, err := sessionlog.Open(dir, "bench", sessionlog.Options{Now: func() time.Time { return epoch }})
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			var conv bytes.Buffer
			for i := range n {
				if i > 0 {
					conv.WriteByte(',')
				}
				conv.WriteString(msg(i))
			}
			// Each body is the n messages and one new one: the history stays at n.
			prefix := `{"max_tokens":1024,"messages":[` + conv.String() + ","
			body := func(i int) json.RawMessage {
				return json.RawMessage(prefix + msg(n+i) + `],"model":"claude-x","system":[{"type":"text","text":"sys"}]}`)
			}
			ev := func(i int) agent.Event {
				return agent.Event{Type: agent.EventProviderNativeRawPayload, ExecutionID: "e", ConversationID: "c", Round: i,
					RawPayload: &llm.RawPayloadEvent{Provider: "anthropic", PayloadKind: llm.PayloadRequest, Payload: body(i)}}
			}
			l.Log(string(agent.EventProviderNativeRawPayload), ev(0)) // the first body is written whole
			_ = l.Sync()
			offset, _ := os.Stat(l.Path())
			startBytes := dirBytes(b, dir)
			seen := map[string]bool{}
			if entries, err := os.ReadDir(filepath.Join(dir, sessionlog.PayloadDir("bench"))); err == nil {
				for _, e := range entries {
					seen[e.Name()] = true
				}
			}
			b.ResetTimer()
			for i := range b.N {
				b.StopTimer() // building the body is the provider's cost, not the log's
				e := ev(i + 1)
				b.StartTimer()
				l.Log(string(e.Type), e)
			}
			b.StopTimer()
			_ = l.Sync()
			raw := rawAppend(b, loggedPieces(b, l, offset.Size(), seen))
			b.ReportMetric(float64(dirBytes(b, dir)-startBytes)/float64(b.N), "log-B/op")
			b.ReportMetric(float64(b.Elapsed())/float64(raw), "time-x-of-raw-append")
		})
	}
}

// BenchmarkResumedFirstNativeBody logs the first native request body of a process that
// reopened the log of a 10k-message conversation (a session resumed into its own log):
// the logger rebuilds the log's last body of the conversation and writes a delta of it.
// The baseline, measured in the same run, is what that body cost before: written whole
// (into a fresh log). Reported: time and bytes written as multiples of the baseline's.
func BenchmarkResumedFirstNativeBody(b *testing.B) {
	const n = 10000
	msg := func(i int) string {
		return fmt.Sprintf(`{"role":"user","content":[{"type":"text","text":"turn %d %s"}]}`, i, strings.Repeat("lorem ipsum ", 80))
	}
	elems := make([]string, 0, n+4096)
	for i := range n {
		elems = append(elems, msg(i))
	}
	body := func(k int) json.RawMessage {
		return json.RawMessage(`{"max_tokens":1024,"messages":[` + strings.Join(elems[:k], ",") + `],"model":"claude-x","system":[{"type":"text","text":"sys"}]}`)
	}
	ev := func(exec string, k int) agent.Event {
		return agent.Event{Type: agent.EventProviderNativeRawPayload, ExecutionID: exec, ConversationID: "c", Round: 1,
			RawPayload: &llm.RawPayloadEvent{Provider: "anthropic", PayloadKind: llm.PayloadRequest, Payload: body(k)}}
	}
	dir := b.TempDir()
	open := func(dir string) *sessionlog.FileLogger {
		l, err := sessionlog.Open(dir, "bench", sessionlog.Options{Now: func() time.Time { return epoch }})
		if err != nil {
			b.Fatal(err)
		}
		return l
	}
	l := open(dir)
	l.Log(string(agent.EventProviderNativeRawPayload), ev("e0", n))
	_ = l.Close()
	var resumed, whole time.Duration
	var resumedBytes, wholeBytes int64
	i := 0
	// The whole iteration is timed (no StopTimer): b.Loop sizes the run by the time it
	// measures, and an untimed iteration would make it run without end. The figures
	// reported are measured apart, below.
	for b.Loop() {
		i++
		elems = append(elems, msg(n+i))
		e := ev(fmt.Sprintf("e%d", i), n+i)
		before := dirBytes(b, dir)
		start := time.Now()
		l := open(dir)
		l.Log(string(e.Type), e)
		_ = l.Close()
		resumed += time.Since(start)
		resumedBytes += dirBytes(b, dir) - before

		fresh := b.TempDir()
		start = time.Now()
		l = open(fresh)
		l.Log(string(e.Type), e)
		_ = l.Close()
		whole += time.Since(start)
		wholeBytes += dirBytes(b, fresh)
	}
	b.ReportMetric(float64(resumedBytes)/float64(i), "resumed-B/op")
	b.ReportMetric(float64(wholeBytes)/float64(i), "whole-B/op")
	b.ReportMetric(float64(resumed.Microseconds())/float64(i)/1000, "resumed-ms/op")
	b.ReportMetric(float64(resumed)/float64(whole), "time-x-of-whole")
	b.ReportMetric(float64(resumedBytes)/float64(wholeBytes), "bytes-x-of-whole")
}

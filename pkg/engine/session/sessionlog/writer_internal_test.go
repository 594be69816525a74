package sessionlog

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

func backgroundLogger(t *testing.T, opts Options) *FileLogger {
	t.Helper()
	opts.Background = true
	l, err := Open(t.TempDir(), "s1", opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l
}

// What the caller changes after Log returns is not what the log holds: the writer gets
// a copy. The writer is held up (l.mu) until the caller has changed everything it logged.
func TestBackgroundWritesWhatWasLogged(t *testing.T) {
	l := backgroundLogger(t, Options{})
	msg := &llm.Message{ID: "m1", Role: llm.RoleAssistant, Content: []llm.Part{llm.TextPart("before")},
		Metadata: map[string]any{"k": "before", "list": []any{"before"}}}
	call := &llm.ToolCall{ID: "c1", Name: "Read", Input: []byte(`{"p":"before"}`)}
	msg.Content = append(msg.Content, llm.Part{Type: llm.PartToolUse, ToolCall: call})
	l.mu.Lock()
	l.Log(EventHistoryMutation, agent.Event{Type: agent.EventHistoryMutation, ExecutionID: "e1", Message: msg,
		Mutation: &agent.MutationData{Kind: "append", Index: 0}})
	delta := &agent.DeltaData{Delta: "before"}
	l.Log(EventProviderStreamRawDelta, agent.Event{Type: agent.EventProviderStreamRawDelta, ExecutionID: "e1", Delta: delta})
	msg.Content[0].Text = "after"
	msg.Metadata["k"] = "after"
	msg.Metadata["list"].([]any)[0] = "after"
	copy(call.Input, `{"p":"after!"}`)
	// delta is not changed: a streamed piece's DeltaData is kept as logged (see own).
	l.mu.Unlock()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); strings.Contains(got, "after") || strings.Count(got, "before") != 5 {
		t.Fatalf("the log holds what was changed after Log:\n%s", got)
	}
}

// A full queue makes the caller wait; nothing is dropped.
func TestBackgroundQueueIsBoundedAndLossless(t *testing.T) {
	l := backgroundLogger(t, Options{})
	const n = QueueLength + 50
	l.mu.Lock() // the writer takes one event and waits
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range n {
			l.Log(EventPreRun, PreRunData{Input: "p", HistoryLength: i})
		}
	}()
	select {
	case <-done:
		t.Fatal("Log returned with more events queued than QueueLength")
	case <-time.After(100 * time.Millisecond):
	}
	l.bg.mu.Lock()
	q := len(l.bg.q)
	l.bg.mu.Unlock()
	if q != QueueLength {
		t.Errorf("queue holds %d, want %d", q, QueueLength)
	}
	l.mu.Unlock()
	<-done
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := ReadLogFile(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Entries) != n {
		t.Fatalf("%d entries, want %d", len(c.Entries), n)
	}
	for i, e := range c.Entries {
		var d PreRunData
		if err := json.Unmarshal(e.Data, &d); err != nil || d.HistoryLength != i || e.Sequence != int64(i+1) {
			t.Fatalf("entry %d: %+v (%v)", i, d, err)
		}
	}
}

// A write that fails in the writer goes to OnError, as a synchronous Log's does; Append
// returns it.
func TestBackgroundReportsWriteErrors(t *testing.T) {
	var mu sync.Mutex
	var failed []string
	l := backgroundLogger(t, Options{OnError: func(ev string, err error) {
		mu.Lock()
		failed = append(failed, ev+": "+err.Error())
		mu.Unlock()
	}})
	ro, err := os.Open(l.Path()) // writes to it fail
	if err != nil {
		t.Fatal(err)
	}
	l.mu.Lock()
	rw := l.f
	l.f = ro
	l.mu.Unlock()
	l.Log(EventPreRun, PreRunData{Input: "lost"})
	appendErr := l.Append(EventSessionShutdown, SessionShutdownData{Reason: "other"})
	l.mu.Lock()
	l.f = rw
	l.mu.Unlock()
	_ = ro.Close()
	mu.Lock()
	defer mu.Unlock()
	if len(failed) != 1 || !strings.Contains(failed[0], "pre_run: session log: write pre_run") {
		t.Errorf("OnError calls = %q", failed)
	}
	if appendErr == nil || !strings.Contains(appendErr.Error(), "write session_shutdown") {
		t.Errorf("Append = %v", appendErr)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Append(EventPreRun, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Append after Close = %v, want ErrClosed", err)
	}
}

// An idle logger holds no goroutine and no queue: the writer starts with the first event
// and ends when it has written what was queued (an engine keeps many idle sessions).
func TestBackgroundWriterIsIdleBetweenBursts(t *testing.T) {
	l := backgroundLogger(t, Options{})
	idle := func() bool {
		l.bg.mu.Lock()
		defer l.bg.mu.Unlock()
		return !l.bg.running && l.bg.q == nil
	}
	if !idle() {
		t.Fatal("a new logger has a running writer or a queue")
	}
	for round := range 3 {
		for i := range 100 {
			l.Log(EventPreRun, PreRunData{Input: "p", HistoryLength: round*100 + i})
		}
		if err := l.Sync(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for !idle() {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: the writer is still running with nothing queued", round)
			}
			time.Sleep(time.Millisecond)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	c, err := ReadLogFile(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Entries) != 300 {
		t.Fatalf("%d entries, want 300", len(c.Entries))
	}
	for i, e := range c.Entries {
		var d PreRunData
		if err := json.Unmarshal(e.Data, &d); err != nil || d.HistoryLength != i {
			t.Fatalf("entry %d out of order: %+v (%v)", i, d, err)
		}
	}
}

// A burst waits WriteDelay before the writer starts on it, unless a caller waits for
// the result (Sync, Append, Close) or batchLength events are queued.
func TestBackgroundWriterWaitsForTheBurst(t *testing.T) {
	lines := func(l *FileLogger) int {
		b, err := os.ReadFile(l.Path())
		if err != nil {
			t.Fatal(err)
		}
		return strings.Count(string(b), "\n")
	}
	l := backgroundLogger(t, Options{WriteDelay: time.Hour})
	for i := range 10 {
		l.Log(EventPreRun, PreRunData{Input: "p", HistoryLength: i})
	}
	time.Sleep(50 * time.Millisecond)
	if n := lines(l); n != 0 {
		t.Fatalf("%d lines written before the delay", n)
	}
	if err := l.Sync(); err != nil {
		t.Fatal(err)
	}
	if n := lines(l); n != 10 {
		t.Fatalf("Sync left %d lines, want 10", n)
	}
	for i := range batchLength {
		l.Log(EventPreRun, PreRunData{Input: "p", HistoryLength: i})
	}
	deadline := time.Now().Add(5 * time.Second)
	for lines(l) < 10+batchLength {
		if time.Now().After(deadline) {
			t.Fatalf("a full batch was not written: %d lines", lines(l))
		}
		time.Sleep(time.Millisecond)
	}
	l.Log(EventPreRun, PreRunData{Input: "last"})
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if n := lines(l); n != 11+batchLength {
		t.Fatalf("Close left %d lines, want %d", n, 11+batchLength)
	}

	short := backgroundLogger(t, Options{WriteDelay: 5 * time.Millisecond})
	short.Log(EventPreRun, PreRunData{Input: "p"})
	deadline = time.Now().Add(5 * time.Second)
	for lines(short) < 1 {
		if time.Now().After(deadline) {
			t.Fatal("the burst was not written after the delay")
		}
		time.Sleep(time.Millisecond)
	}
}

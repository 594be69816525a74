package sessionlog_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/contextwin"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
)

// sessionEvents returns data for every session-level event, keyed by event.
func sessionEvents() []struct {
	ev   sessionlog.EventType
	data any
} {
	f := llm.Factory{NewID: func() string { return "m1" }, Now: func() time.Time { return epoch }}
	history := []llm.Message{f.System("sys"), f.User("hi"), f.Assistant([]llm.Part{llm.TextPart("hello")}, "")}
	tools := []llm.ToolSchema{{Name: "Read", Description: "read", InputSchema: json.RawMessage(`{"type":"object"}`)}}
	return []struct {
		ev   sessionlog.EventType
		data any
	}{
		{sessionlog.EventSessionInit, sessionlog.NewSessionInit("sys", "script", "m", "/w", tools)},
		{sessionlog.EventServerTool, sessionlog.ServerToolData{Name: "web_search", Query: "go generics"}},
		{sessionlog.EventPreRun, sessionlog.PreRunData{Provider: "script", Input: "hi", HistoryLength: 1}},
		{sessionlog.EventHistoryMutation, sessionlog.ResetHistory(history[:1])},
		{sessionlog.EventTextDelta, sessionlog.TextDeltaData{Delta: "hel", ExecutionID: "e1"}},
		{sessionlog.EventAssistant, sessionlog.NewAssistantData("hello", history, 1)},
		{sessionlog.EventContextCompact, sessionlog.ContextCompactData{Trigger: "auto",
			Before: contextwin.State(900, 1000), After: contextwin.State(100, 1000)}},
		{sessionlog.EventError, sessionlog.NewErrorData("run", llm.NewError(llm.CodeRateLimit, "slow down", nil))},
		{sessionlog.EventSessionShutdown, sessionlog.SessionShutdownData{Reason: "prompt_input_exit"}},
	}
}

// TestLogEveryEventGolden writes every spec event (session-level ones with their typed
// data, replay-boundary ones as agent events) and pins the JSONL format.
func TestLogEveryEventGolden(t *testing.T) {
	dir := t.TempDir()
	l := openLogger(t, dir, "golden-session", 0)
	logged := map[sessionlog.EventType]bool{}
	for _, e := range sessionEvents() {
		mustLog(t, l, e.ev, e.data)
		logged[e.ev] = true
	}
	for _, ev := range agentRun() {
		mustLog(t, l, string(ev.Type), ev)
		logged[sessionlog.EventType(ev.Type)] = true
	}
	for _, ev := range sessionlog.SpecEvents {
		if !logged[ev] {
			t.Errorf("spec event %s not covered", ev)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "every_event.golden.jsonl")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("log differs from %s (run with -update to accept)", golden)
	}
	c := readAll(t, l.Path())
	if len(c.Skipped) != 0 {
		t.Fatalf("skipped lines: %v", c.Skipped)
	}
	for i, e := range c.Entries {
		if e.Sequence != int64(i+1) || e.SessionID != "golden-session" || e.SchemaVersion != 1 ||
			!e.Timestamp.Equal(epoch.Add(time.Duration(i)*time.Millisecond)) || e.Line != i+1 {
			t.Errorf("entry %d: %+v", i, e)
		}
	}
}

// sessionPort is the logger port the session runtime declares (pkg/engine/session
// Logger); both loggers must satisfy it without an adapter.
type sessionPort interface {
	Log(event string, data any)
}

var (
	_ sessionPort = sessionlog.SilentLogger{}
	_ sessionPort = (*sessionlog.FileLogger)(nil)
)

func TestSilentLoggerWritesNothing(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	var l sessionlog.Logger = sessionlog.SilentLogger{}
	for _, ev := range sessionlog.SpecEvents {
		l.Log(ev, map[string]any{"apiKey": "x"})
	}
	l.Log("", func() {}) // invalid input is not its concern either
	if err := (sessionlog.SilentLogger{}).Close(); err != nil {
		t.Error(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("SilentLogger created %d files", len(entries))
	}
}

func TestLogReportsFailuresToOnError(t *testing.T) {
	var mu sync.Mutex
	var failed []string
	l, err := sessionlog.Open(t.TempDir(), "s1", sessionlog.Options{OnError: func(ev string, err error) {
		mu.Lock()
		failed = append(failed, ev+": "+err.Error())
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	l.Log(sessionlog.EventPreRun, sessionlog.PreRunData{Input: "ok"})
	l.Log("Not Snake", nil)
	_ = l.Close()
	l.Log(sessionlog.EventSessionShutdown, nil)
	if len(failed) != 2 || !strings.Contains(failed[0], "invalid event") || !strings.Contains(failed[1], "closed") {
		t.Errorf("OnError calls = %q", failed)
	}
	if c := readAll(t, l.Path()); len(c.Entries) != 1 {
		t.Errorf("%d entries, want 1", len(c.Entries))
	}
}

func TestOpenAndLogErrors(t *testing.T) {
	dir := t.TempDir()
	for _, id := range []string{"", "../x", "a/b", ".hidden"} {
		if _, err := sessionlog.Open(dir, id, sessionlog.Options{}); !errors.Is(err, store.ErrInvalidID) {
			t.Errorf("Open(%q) = %v, want ErrInvalidID", id, err)
		}
	}
	l := openLogger(t, dir, "s1", 0)
	for _, ev := range []sessionlog.EventType{"", "Bad Event", "a\"b", "new\nline"} {
		if err := l.Append(ev, nil); !errors.Is(err, sessionlog.ErrInvalidEvent) {
			t.Errorf("Log(%q) = %v, want ErrInvalidEvent", ev, err)
		}
	}
	if err := l.Append("bad_data", func() {}); err == nil {
		t.Error("Log of unencodable data succeeded")
	}
	mustLog(t, l, sessionlog.EventPreRun, nil)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	if err := l.Append(sessionlog.EventPreRun, nil); !errors.Is(err, sessionlog.ErrClosed) {
		t.Errorf("Log after Close = %v, want ErrClosed", err)
	}
	c := readAll(t, l.Path())
	if len(c.Entries) != 1 || c.Entries[0].Sequence != 1 || c.Entries[0].Data != nil {
		t.Errorf("entries = %+v, want one data-less pre_run with sequence 1", c.Entries)
	}
	st, err := os.Stat(l.Path())
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("log mode = %v, %v", st.Mode(), err)
	}
}

func TestReopenContinuesAndRepairs(t *testing.T) {
	dir := t.TempDir()
	l := openLogger(t, dir, "s1", 0)
	for i := range 3 {
		mustLog(t, l, sessionlog.EventError, sessionlog.ErrorData{Error: fmt.Sprint(i)})
	}
	_ = l.Close()

	// A crash mid-write leaves a partial last line.
	f, err := os.OpenFile(l.Path(), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString(`{"schemaVersion":1,"sequence":4,"timestamp":"2026-03-01T12:0`)
	_ = f.Close()
	c := readAll(t, l.Path())
	if len(c.Entries) != 3 || len(c.Skipped) != 1 || !c.Skipped[0].Partial || c.Skipped[0].Line != 4 {
		t.Fatalf("reading a torn log: %d entries, skipped %+v", len(c.Entries), c.Skipped)
	}

	l2 := openLogger(t, dir, "s1", 0)
	mustLog(t, l2, sessionlog.EventError, sessionlog.ErrorData{Error: "after"})
	mustLog(t, l2, sessionlog.EventSessionShutdown, sessionlog.SessionShutdownData{Reason: "other"})
	_ = l2.Close()
	c = readAll(t, l.Path())
	if len(c.Skipped) != 0 || len(c.Entries) != 5 {
		t.Fatalf("after reopening: %d entries, skipped %+v", len(c.Entries), c.Skipped)
	}
	for i, e := range c.Entries {
		if e.Sequence != int64(i+1) {
			t.Errorf("entry %d has sequence %d", i, e.Sequence)
		}
	}
}

func TestReadLogReportsBadLines(t *testing.T) {
	in := strings.Join([]string{
		`{"schemaVersion":1,"sequence":1,"timestamp":"2026-03-01T12:00:00Z","sessionId":"s","event":"pre_run"}`,
		``,
		`not json`,
		`{"schemaVersion":1,"sequence":2}`,
		`{"schemaVersion":1,"sequence":3,"timestamp":"2026-03-01T12:00:00Z","sessionId":"s","event":"assistant","data":{"content":"x"}}`,
		`{"partial`,
	}, "\n")
	c, err := sessionlog.ReadLog(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Entries) != 2 || c.Entries[0].Line != 1 || c.Entries[1].Line != 5 {
		t.Errorf("entries = %+v", c.Entries)
	}
	var lines []string
	for _, s := range c.Skipped {
		lines = append(lines, fmt.Sprintf("%d/%v", s.Line, s.Partial))
	}
	if got := strings.Join(lines, ","); got != "3/false,4/false,6/true" {
		t.Errorf("skipped = %s", got)
	}
	if c, err := sessionlog.ReadLogFile(filepath.Join(t.TempDir(), "missing.jsonl")); err != nil || len(c.Entries) != 0 {
		t.Errorf("missing file: %v %v", c, err)
	}
}

func TestConcurrentLogging(t *testing.T) {
	dir := t.TempDir()
	l := openLogger(t, dir, "s1", 32)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				if err := l.Append(sessionlog.EventError, sessionlog.ErrorData{
					Error: fmt.Sprintf("g%d-%d %s", g, i, strings.Repeat("z", i))}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	_ = l.Close()
	c := readAll(t, l.Path())
	if len(c.Entries) != 400 || len(c.Skipped) != 0 {
		t.Fatalf("%d entries, %d skipped; want 400, 0", len(c.Entries), len(c.Skipped))
	}
	for i, e := range c.Entries {
		if e.Sequence != int64(i+1) {
			t.Fatalf("line %d has sequence %d", i+1, e.Sequence)
		}
		if i > 0 && e.Timestamp.Before(c.Entries[i-1].Timestamp) {
			t.Fatalf("timestamps go backwards at line %d", i+1)
		}
	}
	v := sessionlog.ValidateSessionReplayLogEntries(c.Entries, sessionlog.DirPayloads(dir))
	if !v.OK {
		t.Errorf("validation: %+v", v.Issues)
	}
}

func TestDefaultDirs(t *testing.T) {
	if got := sessionlog.ProjectDir("/repo"); got != filepath.Join("/repo", ".robota", "logs") {
		t.Errorf("ProjectDir = %s", got)
	}
	t.Setenv("HOME", "/home/tester")
	if got, err := sessionlog.UserDir(); err != nil || got != filepath.Join("/home/tester", ".robota", "logs") {
		t.Errorf("UserDir = %s, %v", got, err)
	}
	if got := sessionlog.LogPath("/l", "abc"); got != filepath.Join("/l", "abc.jsonl") {
		t.Errorf("LogPath = %s", got)
	}
}

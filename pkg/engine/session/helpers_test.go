package session_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
	"github.com/robota-sdk/robota-go/pkg/providers/script"
)

// trace is an ordered record of what happened, shared by the fakes of one test.
type trace struct {
	mu    sync.Mutex
	steps []string
}

func (t *trace) add(step string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.steps = append(t.steps, step)
	t.mu.Unlock()
}

func (t *trace) get() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.steps)
}

// ids returns a deterministic ID generator: id-1, id-2, ...
func ids() func() string {
	var mu sync.Mutex
	n := 0
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return fmt.Sprintf("id-%d", n)
	}
}

func fixedClock() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) }

// recordingProvider wraps a provider and keeps every request; started (when set) receives
// one value as each call begins.
type recordingProvider struct {
	inner   llm.Provider
	started chan llm.ChatRequest
	mu      sync.Mutex
	reqs    []llm.ChatRequest
}

func (p *recordingProvider) Name() string { return p.inner.Name() }

func (p *recordingProvider) Chat(ctx context.Context, req llm.ChatRequest, cb llm.Callbacks) (llm.ChatResponse, error) {
	p.mu.Lock()
	p.reqs = append(p.reqs, req)
	p.mu.Unlock()
	if p.started != nil {
		p.started <- req
	}
	return p.inner.Chat(ctx, req, cb)
}

func (p *recordingProvider) requests() []llm.ChatRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.reqs)
}

func (p *recordingProvider) compactionRequests() []llm.ChatRequest {
	var out []llm.ChatRequest
	for _, r := range p.requests() {
		if r.Purpose == llm.PurposeCompaction {
			out = append(out, r)
		}
	}
	return out
}

func newProvider(t testing.TB, yaml string) *recordingProvider {
	t.Helper()
	p, err := script.New([]byte(yaml), t.Name()+".yaml")
	if err != nil {
		t.Fatalf("script: %v", err)
	}
	return &recordingProvider{inner: p}
}

// fakeEvaluator answers with fn (allow everything when nil) and traces each call.
type fakeEvaluator struct {
	tr *trace
	fn func(req session.PermissionRequest, mode session.PermissionMode) session.PermissionDecision
}

func (e *fakeEvaluator) Evaluate(_ context.Context, req session.PermissionRequest, mode session.PermissionMode) session.PermissionDecision {
	e.tr.add("evaluate:" + req.ToolName)
	if e.fn == nil {
		return session.PermissionDecision{Behavior: session.BehaviorAllow, Reason: "test allows all"}
	}
	return e.fn(req, mode)
}

func allowAll() *fakeEvaluator { return &fakeEvaluator{} }

// fakeHooks records every hook input and answers with the per-event function.
type fakeHooks struct {
	tr      *trace
	mu      sync.Mutex
	inputs  []session.HookInput
	answers map[session.HookEvent]func(session.HookInput) session.HookOutcome
}

func (h *fakeHooks) Run(_ context.Context, in session.HookInput) session.HookOutcome {
	h.tr.add("hook:" + string(in.HookEventName))
	h.mu.Lock()
	h.inputs = append(h.inputs, in)
	fn := h.answers[in.HookEventName]
	h.mu.Unlock()
	if fn == nil {
		return session.HookOutcome{}
	}
	return fn(in)
}

func (h *fakeHooks) on(ev session.HookEvent, fn func(session.HookInput) session.HookOutcome) *fakeHooks {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.answers == nil {
		h.answers = map[session.HookEvent]func(session.HookInput) session.HookOutcome{}
	}
	h.answers[ev] = fn
	return h
}

func (h *fakeHooks) of(ev session.HookEvent) []session.HookInput {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []session.HookInput
	for _, in := range h.inputs {
		if in.HookEventName == ev {
			out = append(out, in)
		}
	}
	return out
}

func (h *fakeHooks) events() []session.HookEvent {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]session.HookEvent, len(h.inputs))
	for i, in := range h.inputs {
		out[i] = in.HookEventName
	}
	return out
}

// memStore is a store.MemoryStore (the journal format a FileStore writes) that counts
// appends, traces them and can be made to fail.
type memStore struct {
	tr    *trace
	mu    sync.Mutex
	saves int
	ms    *store.MemoryStore
	err   error
}

func (s *memStore) store() *store.MemoryStore {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ms == nil {
		s.ms = store.NewMemoryStore(store.Options{})
	}
	return s.ms
}

func (s *memStore) Append(ctx context.Context, d *store.Delta) error {
	s.tr.add("store:save")
	ms := s.store()
	s.mu.Lock()
	err := s.err
	s.mu.Unlock()
	if err != nil {
		return err
	}
	if err := ms.Append(ctx, d); err != nil {
		return err
	}
	s.mu.Lock()
	s.saves++
	s.mu.Unlock()
	return nil
}

func (s *memStore) load(t testing.TB, id string) store.Record {
	t.Helper()
	rec, err := s.store().Load(context.Background(), id)
	if err != nil {
		t.Fatalf("record %s: %v", id, err)
	}
	return rec
}

// segments are the conversations the journal of id holds.
func (s *memStore) segments(t testing.TB, id string) []store.Segment {
	t.Helper()
	segs, err := s.store().Segments(context.Background(), id)
	if err != nil {
		t.Fatalf("journal %s: %v", id, err)
	}
	return segs
}

// logEntry is one logged event with its data in JSON form (which proves it serializes).
type logEntry struct {
	event string
	data  map[string]any
}

type recLogger struct {
	t       testing.TB
	tr      *trace
	mu      sync.Mutex
	entries []logEntry
}

func (l *recLogger) Log(event string, data any) {
	b, err := json.Marshal(data)
	if err != nil {
		l.t.Errorf("log %s: data does not serialize: %v", event, err)
		return
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		l.t.Errorf("log %s: data is not an object: %s", event, b)
	}
	if event == "session_shutdown" || event == "error" {
		l.tr.add("log:" + event)
	}
	l.mu.Lock()
	l.entries = append(l.entries, logEntry{event, m})
	l.mu.Unlock()
}

func (l *recLogger) of(event string) []logEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []logEntry
	for _, e := range l.entries {
		if e.event == event {
			out = append(out, e)
		}
	}
	return out
}

// funcTool is a tool whose behaviour is a closure; it counts executions.
type funcTool struct {
	name  string
	tr    *trace
	fn    func(ctx context.Context, args json.RawMessage) llm.ToolResult
	mu    sync.Mutex
	calls []json.RawMessage
}

func (f *funcTool) Schema() llm.ToolSchema {
	return llm.ToolSchema{Name: f.name, Description: f.name + " tool", InputSchema: json.RawMessage(`{"type":"object"}`)}
}

func (f *funcTool) Execute(ctx context.Context, args json.RawMessage) llm.ToolResult {
	f.tr.add("tool:" + f.name)
	f.mu.Lock()
	f.calls = append(f.calls, args)
	f.mu.Unlock()
	if f.fn == nil {
		return llm.ToolSuccess("ran " + f.name + " with " + string(args))
	}
	return f.fn(ctx, args)
}

func (f *funcTool) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

// toolEvents collects OnToolExecution events.
type toolEvents struct {
	mu     sync.Mutex
	events []session.ToolExecutionEvent
}

func (c *toolEvents) add(ev session.ToolExecutionEvent) {
	c.mu.Lock()
	c.events = append(c.events, ev)
	c.mu.Unlock()
}

func (c *toolEvents) get() []session.ToolExecutionEvent {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.events)
}

const testSystem = "You are a test assistant working in the project."

// newSession builds a session with deterministic IDs and clock and a temp cwd.
func newSession(t testing.TB, cfg session.Config) *session.Session {
	t.Helper()
	if cfg.NewID == nil {
		cfg.NewID = ids()
	}
	if cfg.Now == nil {
		cfg.Now = fixedClock
	}
	if cfg.Cwd == "" {
		cfg.Cwd = t.TempDir()
	}
	if cfg.SystemMessage == "" {
		cfg.SystemMessage = testSystem
	}
	s, err := session.New(context.Background(), cfg)
	if err != nil {
		t.Fatalf("session.New: %v", err)
	}
	return s
}

func mustRun(t testing.TB, s *session.Session, input string) string {
	t.Helper()
	out, err := s.Run(context.Background(), input)
	if err != nil {
		t.Fatalf("Run(%q): %v", input, err)
	}
	return out
}

func roles(msgs []llm.Message) string {
	rs := make([]string, len(msgs))
	for i, m := range msgs {
		rs[i] = string(m.Role)
	}
	return strings.Join(rs, ",")
}

// waitFor receives from ch or fails after a generous deadline (a hang is a bug).
func waitFor[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
		var zero T
		return zero
	}
}

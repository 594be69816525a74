package interactive_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive/interactivetest"

	"github.com/robota-sdk/robota-go/pkg/engine/assemble"
	. "github.com/robota-sdk/robota-go/pkg/engine/interactive"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/config"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/providers/script"
)

// testWait bounds every wait of these tests: ordering comes from channels, the bound
// only turns a hang into a failure.
const testWait = 20 * time.Second

// safeIDs is a goroutine-safe deterministic id generator.
// The event helpers are interactivetest's, under the names these tests use.
var (
	next          = interactivetest.Next
	until         = interactivetest.Until
	isType        = interactivetest.IsType
	ends          = interactivetest.Ends
	checkSeq      = interactivetest.CheckSeq
	submitAndWait = interactivetest.SubmitAndWait
)

func safeIDs() func() string {
	var n atomic.Int64
	return func() string { return fmt.Sprintf("id-%03d", n.Add(1)) }
}

func scriptProvider(t *testing.T, yaml string) *script.Provider {
	t.Helper()
	p, err := script.New([]byte(yaml), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// gatedProvider holds each Chat call until the test releases it (or the call is
// cancelled), and reports each call as it starts.
type gatedProvider struct {
	inner   llm.Provider
	started chan string // the last user text of each call
	release chan struct{}
}

func newGated(inner llm.Provider) *gatedProvider {
	return &gatedProvider{inner: inner, started: make(chan string, 16), release: make(chan struct{}, 16)}
}

func (g *gatedProvider) Name() string { return g.inner.Name() }

func (g *gatedProvider) Chat(ctx context.Context, req llm.ChatRequest, cb llm.Callbacks) (llm.ChatResponse, error) {
	last := ""
	for _, m := range req.Messages {
		if m.Role == llm.RoleUser {
			last = m.Text()
		}
	}
	g.started <- last
	select {
	case <-g.release:
	case <-ctx.Done():
		return llm.ChatResponse{}, ctx.Err()
	}
	return g.inner.Chat(ctx, req, cb)
}

// probeTool records its executions; with the default permission mode every call of it
// is asked (an unknown tool).
type probeTool struct {
	mu   sync.Mutex
	runs int
}

func (p *probeTool) Schema() llm.ToolSchema {
	return llm.ToolSchema{Name: "Probe", Description: "test tool", InputSchema: json.RawMessage(`{"type":"object"}`)}
}

func (p *probeTool) Execute(context.Context, json.RawMessage) llm.ToolResult {
	p.mu.Lock()
	p.runs++
	p.mu.Unlock()
	return llm.ToolSuccess("probe ran")
}

func (p *probeTool) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.runs
}

// newTestSession assembles an InteractiveSession over provider in a fresh project.
func newTestSession(t *testing.T, provider llm.Provider, opts Options) *InteractiveSession {
	t.Helper()
	if opts.Cwd == "" {
		opts.Cwd = t.TempDir()
	}
	opts.Home, opts.Env, opts.NewID, opts.LLM = t.TempDir(), envOf(nil), safeIDs(), provider
	s, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background(), "other") })
	return s
}

func waitStarted(t *testing.T, g *gatedProvider) string {
	t.Helper()
	select {
	case s := <-g.started:
		return s
	case <-time.After(testWait):
		t.Fatal("the provider was never called")
	}
	return ""
}

// Options and New are the composition root's: these tests drive the session core
// through an assembled session, and only an external test package may import assemble
// (which imports interactive).
type Options = assemble.Options

func New(ctx context.Context, opts Options) (*InteractiveSession, error) {
	return assemble.New(ctx, opts)
}

// envOf is an environment of only m.
func envOf(m map[string]string) config.Env {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

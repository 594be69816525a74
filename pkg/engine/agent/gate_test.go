package agent_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// gate blocks tools until the test releases them. Used inside a synctest bubble, the test
// waits until every goroutine is blocked (synctest.Wait) and then reads exactly how many
// tools are running — no timing involved.
type gate struct {
	mu      sync.Mutex
	active  int
	max     int
	release chan struct{}
}

func newGate() *gate { return &gate{release: make(chan struct{})} }

func (g *gate) run(_ context.Context, args json.RawMessage) llm.ToolResult {
	g.mu.Lock()
	g.active++
	g.max = max(g.max, g.active)
	g.mu.Unlock()
	<-g.release
	g.mu.Lock()
	g.active--
	g.mu.Unlock()
	return llm.ToolSuccess("ran " + string(args))
}

func (g *gate) running() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.active
}

func (g *gate) maxActive() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.max
}

// drive releases total tools one at a time. Before each release, once the batch can make no
// more progress, exactly min(limit, not yet released) tools must be running.
func (g *gate) drive(t *testing.T, total, limit int) {
	t.Helper()
	for released := 0; released < total; released++ {
		synctest.Wait()
		if got, want := g.running(), min(limit, total-released); got != want {
			t.Fatalf("after %d releases %d tools run at once, want %d", released, got, want)
		}
		g.release <- struct{}{}
	}
}

package agent_test

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// gate makes tools block until released, so a test can observe how many run at once
// without timing: drive waits until `expect` tools are active before releasing one.
type gate struct {
	mu      sync.Mutex
	cond    *sync.Cond
	active  int
	max     int
	expect  int
	release chan struct{}
}

func newGate(expect int) *gate {
	g := &gate{expect: expect, release: make(chan struct{})}
	g.cond = sync.NewCond(&g.mu)
	return g
}

func (g *gate) run(_ context.Context, args json.RawMessage) llm.ToolResult {
	g.mu.Lock()
	g.active++
	g.max = max(g.max, g.active)
	g.cond.Broadcast()
	g.mu.Unlock()
	<-g.release
	g.mu.Lock()
	g.active--
	g.mu.Unlock()
	return llm.ToolSuccess("ran " + string(args))
}

// drive releases total tools one at a time, each time after the expected number of tools
// (or all that remain) have been running concurrently.
func (g *gate) drive(total int) {
	for released := 0; released < total; released++ {
		want := min(g.expect, total-released)
		g.mu.Lock()
		for g.active < want {
			g.cond.Wait()
		}
		g.mu.Unlock()
		g.release <- struct{}{}
	}
}

func (g *gate) maxActive() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.max
}

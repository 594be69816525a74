package worker

import (
	"context"
	"fmt"
	"os"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

var _ runnerapi.Preparer = (*Worker)(nil)

// Prepare implements runnerapi.Preparer: it sets up an agent job's loop and tools
// once, over the temporary directory, and drops them. The first set-up in a process
// generates and resolves every tool's JSON schema (~1 ms; later ones reuse them, ~30 µs),
// and a pooled worker pays it while it waits rather than before its first job's started
// event. Nothing runs and no event is emitted.
func (w *Worker) Prepare(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	events := &jobEvents{jobID: "prepare", emit: func(runnerapi.Event) error { return nil }}
	tools, err := agentTools(os.TempDir(), nil, nil, nil, events, nil, nil)
	if err != nil {
		return fmt.Errorf("prepare agent jobs: tools: %w", err)
	}
	if _, err := agent.New(agent.Config{Provider: hostProvider{}, Tools: tools, ConversationID: "prepare"}); err != nil {
		return fmt.Errorf("prepare agent jobs: %w", err)
	}
	return nil
}

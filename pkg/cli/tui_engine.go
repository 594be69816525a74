package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/robota-sdk/robota-go/pkg/client"
	"github.com/robota-sdk/robota-go/pkg/tui"
)

// engineSession opens the TUI's session in the engine at o.Engine (created with
// robota's flags, as the headless --engine run does); nil and the exit status when it
// cannot.
func engineSession(ctx context.Context, o Options, cwd string, stderr io.Writer) (tui.Session, int) {
	c, err := client.Dial(o.Engine, client.DialOptions{TLS: o.EngineTLS})
	if err != nil {
		fmt.Fprintf(stderr, "robota: --engine: %v\n", err)
		return nil, exitConfig
	}
	callCtx, cancel := context.WithTimeout(ctx, engineRPCWait)
	defer cancel()
	shared := liveBefore(callCtx, c, o, cwd)
	info, err := c.CreateSession(callCtx, client.SessionOptions{
		Cwd: cwd, Provider: o.Provider, Model: o.Model, Script: o.Script, PermissionMode: o.PermissionMode,
		Allow: o.AllowedTools, Deny: o.DisallowedTools, AppendSystemPrompt: o.AppendSystemPrompt, MaxTurns: o.MaxTurns,
		Resume: o.Resume, Continue: o.Continue, Fork: o.ForkSession,
	})
	if err != nil {
		c.Close()
		return nil, reportEngineSetupError(o.Engine, err, stderr)
	}
	r, err := tui.NewRemote(ctx, c, info, o.Resume != "" || o.Continue, shared[info.ID])
	if err != nil {
		c.Close()
		fmt.Fprintf(stderr, "robota: %v\n", err)
		return nil, exitFailed
	}
	return r, exitOK
}

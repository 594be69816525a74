package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/robota-sdk/robota-go/pkg/client"
	"github.com/robota-sdk/robota-go/pkg/tui"
)

// engineSession opens the TUI's session in the engine at o.Engine (created with
// robota's flags, as the headless --engine run does); nil and the exit status when it
// cannot.
func engineSession(ctx context.Context, o Options, cwd string, stderr io.Writer) (tui.Session, int) {
	r, err := openEngineSession(ctx, o, cwd)
	var setup *engineSetupError
	switch {
	case err == nil:
		return r, exitOK
	case errors.As(err, &setup) && setup.dial:
		fmt.Fprintf(stderr, "robota: --engine: %v\n", setup.err)
		return nil, exitConfig
	case errors.As(err, &setup):
		return nil, reportEngineSetupError(o.Engine, setup.err, stderr)
	}
	fmt.Fprintf(stderr, "robota: %v\n", err)
	return nil, exitFailed
}

// engineSetupError is a dial or CreateSession failure, reported as the headless
// --engine run reports it.
type engineSetupError struct {
	dial bool
	err  error
}

func (e *engineSetupError) Error() string { return e.err.Error() }
func (e *engineSetupError) Unwrap() error { return e.err }

// openEngineSession connects to o.Engine and creates (or resumes) the session there.
func openEngineSession(ctx context.Context, o Options, cwd string) (tui.Session, error) {
	c, err := client.Dial(o.Engine, client.DialOptions{TLS: o.EngineTLS})
	if err != nil {
		return nil, &engineSetupError{dial: true, err: err}
	}
	callCtx, cancel := context.WithTimeout(ctx, engineRPCWait)
	defer cancel()
	shared := liveBefore(callCtx, c, o, cwd)
	info, err := c.CreateSession(callCtx, engineSessionOptions(o, cwd))
	if err != nil {
		c.Close()
		return nil, &engineSetupError{err: err}
	}
	r, err := tui.NewRemote(ctx, c, info, o.Resume != "" || o.Continue, shared[info.ID])
	if err != nil {
		c.Close()
		return nil, err
	}
	r.SetRedial(func(ctx context.Context, id string) (*client.Client, client.SessionInfo, bool, error) {
		return redialEngine(ctx, o, cwd, id)
	})
	return r, nil
}

// engineSessionOptions are the TUI's session options in the engine, from robota's flags.
func engineSessionOptions(o Options, cwd string) client.SessionOptions {
	return client.SessionOptions{
		Cwd: cwd, Provider: o.Provider, Model: o.Model, Script: o.Script, PermissionMode: o.PermissionMode,
		Allow: o.AllowedTools, Deny: o.DisallowedTools, AppendSystemPrompt: o.AppendSystemPrompt, MaxTurns: o.MaxTurns,
		Resume: o.Resume, Continue: o.Continue, Fork: o.ForkSession,
	}
}

// redialEngine connects to the engine again and finds session id: live still, or
// resumed from the engine's store (the engine restarted; resumed true).
func redialEngine(ctx context.Context, o Options, cwd, id string) (*client.Client, client.SessionInfo, bool, error) {
	c, err := client.Dial(o.Engine, client.DialOptions{TLS: o.EngineTLS})
	if err != nil {
		return nil, client.SessionInfo{}, false, err
	}
	if info, err := c.GetSession(ctx, id); err == nil && info.Live {
		return c, info, false, nil
	}
	so := engineSessionOptions(resumeOptions(o, id), cwd)
	info, err := c.CreateSession(ctx, so)
	if err != nil {
		c.Close()
		return nil, client.SessionInfo{}, false, err
	}
	return c, info, true, nil
}

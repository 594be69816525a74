package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/robota-sdk/robota-go/pkg/cli/output"
	"github.com/robota-sdk/robota-go/pkg/client"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/commands"
)

// slashResult runs prompt as a slash command when it is one, as `claude -p "/compact"`
// does, and returns the run's result; handled is false for a prompt the model should
// get: plain text, or a "/name" unknown as a command that names an existing file (a
// path pasted as the prompt). An unknown command is a failed result "Unknown command:
// /name". The result's text is the command's message; a command that did not succeed
// is an error result (exit 1).
//
// A command whose data holds a "prompt" (a skill or custom command the user invoked)
// is not an answer: its text goes to the model instead, returned in *prompt.
func slashResult(ctx context.Context, s *interactive.InteractiveSession, cwd string, prompt *string, out *output.Writer) (res output.Result, handled bool) {
	res, handled = runSlash(ctx, cwd, prompt, out, withGroupEvents(s, out, s.ExecuteCommand))
	res.Model, res.ContextWindow = s.Session().Model(), s.Session().ContextWindow()
	return res, handled
}

// runSlash is slashResult over exec, which runs a command in process or in an engine;
// ctx ends the command (a signal while /agent parallel waits).
func runSlash(ctx context.Context, cwd string, prompt *string, out *output.Writer,
	exec func(ctx context.Context, name, args string) (commands.Result, error)) (res output.Result, handled bool) {
	name, args, ok := commands.Split(*prompt)
	if !ok {
		return res, false
	}
	cmd, err := exec(ctx, name, args)
	switch {
	case errors.Is(err, commands.ErrUnknownCommand) || errors.Is(err, client.ErrNotFound):
		if isExistingPath(cwd, "/"+name) {
			return res, false
		}
		cmd = commands.Result{Message: "Unknown command: /" + name}
	case err != nil:
		cmd = commands.Result{Message: err.Error()}
	}
	if text, ok := cmd.Data[commands.PromptKey].(string); ok && cmd.Success {
		*prompt = text
		return res, false
	}
	if cmd.Success && name == "compact" {
		if before, ok := number(cmd.Data["beforeTokens"]); ok {
			out.CompactBoundary("manual", before)
		}
	}
	res = output.Result{Subtype: output.SubtypeSuccess, Text: cmd.Message}
	if !cmd.Success {
		res.Subtype, res.IsError = output.SubtypeErrorDuringExecution, true
	}
	return res, true
}

// number reads a count from command data: an int in process, a float64 over gRPC.
func number(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case float64:
		return int(n), true
	}
	return 0, false
}

// isExistingPath reports whether p (absolute, or below cwd) names a file or directory.
func isExistingPath(cwd, p string) bool {
	if _, err := os.Stat(p); err == nil {
		return true
	}
	_, err := os.Stat(filepath.Join(cwd, strings.TrimPrefix(p, "/")))
	return err == nil
}

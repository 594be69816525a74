package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/robota-sdk/robota-go/pkg/cli/output"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/commands"
)

// slashResult runs prompt as a slash command when it is one, as `claude -p "/compact"`
// does, and returns the run's result; handled is false for a prompt the model should
// get: plain text, or a "/name" unknown as a command that names an existing file (a
// path pasted as the prompt). An unknown command is a failed result "Unknown command:
// /name". The result's text is the command's message; a command that did not succeed
// is an error result (exit 1).
func slashResult(ctx context.Context, s *interactive.InteractiveSession, cwd, prompt string, out *output.Writer) (res output.Result, handled bool) {
	name, args, ok := commands.Split(prompt)
	if !ok {
		return res, false
	}
	cmd, err := s.ExecuteCommand(ctx, name, args)
	if errors.Is(err, commands.ErrUnknownCommand) {
		if isExistingPath(cwd, "/"+name) {
			return res, false
		}
		cmd = commands.Result{Message: "Unknown command: /" + name}
	} else if err != nil {
		cmd = commands.Result{Message: err.Error()}
	}
	if cmd.Success && name == "compact" {
		if before, ok := cmd.Data["beforeTokens"].(int); ok {
			out.CompactBoundary("manual", before)
		}
	}
	res = output.Result{Subtype: output.SubtypeSuccess, Text: cmd.Message, Model: s.Session().Model(),
		ContextWindow: s.Session().ContextWindow()}
	if !cmd.Success {
		res.Subtype, res.IsError = output.SubtypeErrorDuringExecution, true
	}
	return res, true
}

// isExistingPath reports whether p (absolute, or below cwd) names a file or directory.
func isExistingPath(cwd, p string) bool {
	if _, err := os.Stat(p); err == nil {
		return true
	}
	_, err := os.Stat(filepath.Join(cwd, strings.TrimPrefix(p, "/")))
	return err == nil
}

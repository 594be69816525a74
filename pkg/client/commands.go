package client

import (
	"context"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
)

// CommandResult is a slash command's result: Message for the user, Success, and the
// command's structured Data.
type CommandResult struct {
	Success bool
	Message string
	Data    map[string]any
}

// ExecuteCommand runs the slash command name (without "/") with args in a live session.
// An unknown command is an error matching ErrNotFound.
func (c *Client) ExecuteCommand(ctx context.Context, sessionID, name, args string) (CommandResult, error) {
	resp, err := c.rpc.ExecuteCommand(ctx, &robotav1.ExecuteCommandRequest{SessionId: sessionID, Name: name, Args: args})
	if err != nil {
		return CommandResult{}, rpcErr("execute command /"+name, err)
	}
	return CommandResult{Success: resp.GetSuccess(), Message: resp.GetMessage(), Data: resp.GetData().AsMap()}, nil
}

// CommandInfo describes a slash command a session offers: ModelInvocable says the
// model may run it too, Safety what running it may do ("read-only", "write", "process",
// "network", "background-agent").
type CommandInfo struct {
	Name, Description, Source, ArgumentHint string
	ModelInvocable, UserInvocable           bool
	Safety                                  string
	// Subcommands are the choices of the first argument (mode names, model aliases ...).
	Subcommands []string
}

// ListCommands lists the slash commands of a live session, sorted by name.
func (c *Client) ListCommands(ctx context.Context, sessionID string) ([]CommandInfo, error) {
	resp, err := c.rpc.ListCommands(ctx, &robotav1.ListCommandsRequest{SessionId: sessionID})
	if err != nil {
		return nil, rpcErr("list the commands of session "+sessionID, err)
	}
	out := make([]CommandInfo, 0, len(resp.GetCommands()))
	for _, ci := range resp.GetCommands() {
		out = append(out, CommandInfo{Name: ci.GetName(), Description: ci.GetDescription(), Source: ci.GetSource(), ArgumentHint: ci.GetArgumentHint(),
			ModelInvocable: ci.GetModelInvocable(), UserInvocable: ci.GetUserInvocable(), Safety: ci.GetSafety(),
			Subcommands: ci.GetSubcommands()})
	}
	return out, nil
}

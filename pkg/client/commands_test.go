package client_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/client"
)

// ExecuteCommand returns the command's message, success and data; an unknown command
// matches ErrNotFound.
func TestExecuteCommand(t *testing.T) {
	c := bufEngine(t)
	info := scriptSession(t, c, project(t, "turns:\n  - text: hi\n"))
	ctx := testCtx(t)
	res, err := c.ExecuteCommand(ctx, info.ID, "mode", "acceptEdits")
	if err != nil || !res.Success || res.Message != "Permission mode set to acceptEdits" || res.Data["mode"] != "acceptEdits" {
		t.Fatalf("/mode acceptEdits = %+v, %v", res, err)
	}
	res, err = c.ExecuteCommand(ctx, info.ID, "rewind", "code nope")
	if err != nil || res.Success || res.Data["reason"] != "unknown_checkpoint" {
		t.Fatalf("/rewind = %+v, %v", res, err)
	}
	if _, err := c.ExecuteCommand(ctx, info.ID, "nope", ""); !errors.Is(err, client.ErrNotFound) {
		t.Fatalf("unknown command: %v", err)
	}
}

// ListCommands carries each command's subcommands (the choices clients complete).
func TestListCommandsSubcommands(t *testing.T) {
	c := bufEngine(t)
	info := scriptSession(t, c, project(t, "turns:\n  - text: hi\n"))
	list, err := c.ListCommands(testCtx(t), info.ID)
	if err != nil {
		t.Fatal(err)
	}
	subs := map[string][]string{}
	for _, ci := range list {
		subs[ci.Name] = ci.Subcommands
	}
	for name, want := range map[string]string{"mode": "plan", "model": "sonnet", "language": "Korean"} {
		if !slices.Contains(subs[name], want) {
			t.Errorf("/%s subcommands %q lack %q", name, subs[name], want)
		}
	}
	if len(subs["help"]) != 0 {
		t.Errorf("/help subcommands %q", subs["help"])
	}
}

package client_test

import (
	"errors"
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

package server

import (
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
)

// ExecuteCommand and ListCommands answer over gRPC from the session's command registry:
// message, success and structured data; refusals are success=false; unknown names and
// sessions are NOT_FOUND.
func TestExecuteAndListCommands(t *testing.T) {
	e := startEngine(t, "", nil)
	id := e.create(project(t, helloScript), nil).GetSessionId()
	if r := e.submit(id, "hello"); r.err != nil {
		t.Fatal(r.err)
	}
	ctx := testCtx(t)
	for _, tc := range []struct {
		name, args string
		success    bool
		msg        string
		field      string  // a number data must hold
		value      float64 // its value
	}{
		{name: "cost", success: true, msg: "Tokens: 100 input, 5 output (105 total)\nThis run: 1 prompt(s)", field: "inputTokens", value: 100},
		{name: "context", success: true, msg: "Context: ", field: "messages", value: 3},
		{name: "mode", args: "plan", success: true, msg: "Permission mode set to plan"},
		{name: "mode", args: "nonsense", success: false, msg: "Unknown permission mode"},
		{name: "rewind", args: "code nope", success: false, msg: "nope"},
		{name: "compact", success: true, msg: "Conversation compacted"},
		{name: "clear", success: true, msg: "Conversation cleared."},
	} {
		res, err := e.client.ExecuteCommand(ctx, &robotav1.ExecuteCommandRequest{SessionId: id, Name: tc.name, Args: tc.args})
		if err != nil {
			t.Fatalf("/%s: %v", tc.name, err)
		}
		if res.GetSuccess() != tc.success || !strings.Contains(res.GetMessage(), tc.msg) {
			t.Errorf("/%s %s = %v %q", tc.name, tc.args, res.GetSuccess(), res.GetMessage())
		}
		if tc.field != "" {
			if v := res.GetData().GetFields()[tc.field].GetNumberValue(); v != tc.value {
				t.Errorf("/%s data %s = %v, want %v (%v)", tc.name, tc.field, v, tc.value, res.GetData())
			}
		}
	}
	info, err := e.client.GetSession(ctx, &robotav1.GetSessionRequest{SessionId: id})
	if err != nil || info.GetSession().GetPermissionMode() != robotav1.PermissionMode_PERMISSION_MODE_PLAN {
		t.Errorf("after /mode plan: %v, %v", info, err)
	}

	_, err = e.client.ExecuteCommand(ctx, &robotav1.ExecuteCommandRequest{SessionId: id, Name: "frobnicate"})
	wantCode(t, "unknown command", err, codes.NotFound, "/frobnicate")
	_, err = e.client.ExecuteCommand(ctx, &robotav1.ExecuteCommandRequest{SessionId: "nope", Name: "help"})
	wantCode(t, "unknown session", err, codes.NotFound, "")
	_, err = e.client.ExecuteCommand(ctx, &robotav1.ExecuteCommandRequest{SessionId: id})
	wantCode(t, "no name", err, codes.InvalidArgument, "name")

	list, err := e.client.ListCommands(ctx, &robotav1.ListCommandsRequest{SessionId: id})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range list.GetCommands() {
		names = append(names, c.GetName())
		if c.GetSource() != "builtin" || c.GetDescription() == "" {
			t.Errorf("command %v", c)
		}
		if c.GetName() == "compact" && c.GetArgumentHint() != "[instructions]" {
			t.Errorf("compact hint %q", c.GetArgumentHint())
		}
		// The subcommand trees reach clients, for completion.
		if c.GetName() == "language" && !slices.Contains(c.GetSubcommands(), "Korean") {
			t.Errorf("language subcommands %q", c.GetSubcommands())
		}
	}
	if got := strings.Join(names, ","); got != "agent,background,clear,compact,context,cost,help,language,memory,mode,model,permissions,rename,reset,resume,rewind" {
		t.Errorf("ListCommands = %s", got)
	}
}

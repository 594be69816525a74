package assemble

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sdkmcp "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/robota-sdk/robota-go/pkg/engine/session"
)

const mcpScript = `
turns:
  - text: "Using the server."
    toolCalls:
      - {id: c1, name: mcp__test__echo, input: {text: "hello"}}
      - {id: c2, name: mcp__test__danger, input: {}}
  - text: "Done."
`

// mcpTestServer is an in-memory MCP server with echo and danger; calls records what it
// was asked to run.
func mcpTestServer(t *testing.T) (func(string) (sdkmcp.Transport, error), func() []string) {
	var mu sync.Mutex
	var calls []string
	s := sdkmcp.NewServer(&sdkmcp.Implementation{Name: "test", Version: "1"}, nil)
	type echoIn struct {
		Text string `json:"text"`
	}
	sdkmcp.AddTool(s, &sdkmcp.Tool{Name: "echo"}, func(_ context.Context, _ *sdkmcp.CallToolRequest, in echoIn) (*sdkmcp.CallToolResult, any, error) {
		mu.Lock()
		calls = append(calls, "echo")
		mu.Unlock()
		return &sdkmcp.CallToolResult{Content: []sdkmcp.Content{&sdkmcp.TextContent{Text: "echoed " + in.Text}}}, nil, nil
	})
	sdkmcp.AddTool(s, &sdkmcp.Tool{Name: "danger"}, func(context.Context, *sdkmcp.CallToolRequest, struct{}) (*sdkmcp.CallToolResult, any, error) {
		mu.Lock()
		calls = append(calls, "danger")
		mu.Unlock()
		return &sdkmcp.CallToolResult{Content: []sdkmcp.Content{&sdkmcp.TextContent{Text: "boom"}}}, nil, nil
	})
	transport := func(name string) (sdkmcp.Transport, error) {
		ct, st := sdkmcp.NewInMemoryTransports()
		ss, err := s.Connect(context.Background(), st, nil)
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() { ss.Close() })
		return ct, nil
	}
	return transport, func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), calls...) }
}

func TestAssembledSessionUsesMCPServers(t *testing.T) {
	dir, home := project(t, mcpScript, `,
  "hooks": {"PostToolUse": [{"matcher": "mcp__test__echo", "hooks": [{"type": "command", "command": "cat > `+"'DIR/hook.json'"+`"}]}]}`)
	// project() replaces DIR only in the script; the settings name the hook file directly.
	settingsPath := filepath.Join(dir, ".claude", "settings.json")
	b, _ := os.ReadFile(settingsPath)
	writeFile(t, settingsPath, strings.ReplaceAll(string(b), "DIR", dir))
	writeFile(t, filepath.Join(dir, ".mcp.json"), `{"mcpServers": {
		"test": {"type": "sdk"},
		"broken": {"command": "/nonexistent/robota-test-mcp"}}}`)
	transport, calls := mcpTestServer(t)
	var events []session.ToolExecutionEvent
	var mu sync.Mutex
	a, err := Assemble(context.Background(), Options{Cwd: dir, Home: home, Env: envOf(nil), Now: fixedNow, NewID: ids(),
		Allow: []string{"mcp__test"}, Deny: []string{"mcp__test__danger"}, MCPSDKTransport: transport,
		Callbacks: session.Callbacks{OnToolExecution: func(e session.ToolExecutionEvent) {
			if e.Type == session.ToolEnd {
				mu.Lock()
				events = append(events, e)
				mu.Unlock()
			}
		}}})
	if err != nil {
		t.Fatal(err)
	}
	wantServers := []MCPServer{{Name: "broken", Status: "failed"}, {Name: "test", Status: "connected", Tools: []string{"mcp__test__danger", "mcp__test__echo"}}}
	if len(a.MCPServers) != 2 || a.MCPServers[0].Name != "broken" || a.MCPServers[0].Status != "failed" ||
		!strings.Contains(a.MCPServers[0].Error, "/nonexistent/robota-test-mcp") ||
		a.MCPServers[1].Name != "test" || a.MCPServers[1].Status != "connected" || len(a.MCPServers[1].Tools) != 2 {
		t.Fatalf("MCPServers = %+v, want %+v", a.MCPServers, wantServers)
	}
	if w := strings.Join(a.Warnings, "\n"); !strings.Contains(w, `MCP server "broken" failed to start`) {
		t.Errorf("warnings %q do not name the failed server", w)
	}
	if names := strings.Join(a.Tools, ","); !strings.Contains(names, "mcp__test__echo") || !strings.Contains(names, "mcp__test__danger") {
		t.Errorf("tools = %s", names)
	}
	if _, err := a.Session.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(context.Background(), "other"); err != nil {
		t.Fatal(err)
	}
	got := map[string]session.ToolExecutionEvent{}
	for _, e := range events {
		got[e.ToolUseID] = e
	}
	if e := got["c1"]; !e.Success || !strings.Contains(e.ToolResultData, "echoed hello") {
		t.Errorf("echo call = %+v, want the server's answer", e)
	}
	if e := got["c2"]; !e.Denied || !strings.Contains(e.Reason, "mcp__test__danger") {
		t.Errorf("danger call = %+v, want denied by the deny rule", e)
	}
	if c := strings.Join(calls(), ","); c != "echo" {
		t.Errorf("the server ran %q, want only echo", c)
	}
	hook, err := os.ReadFile(filepath.Join(dir, "hook.json"))
	if err != nil || !strings.Contains(string(hook), `"tool_name":"mcp__test__echo"`) || !strings.Contains(string(hook), "echoed hello") {
		t.Errorf("PostToolUse hook input = %s (%v), want the MCP tool's name and response", hook, err)
	}
}

func TestStrictMCPConfigIgnoresProjectFile(t *testing.T) {
	dir, home := project(t, mcpScript, "")
	writeFile(t, filepath.Join(dir, ".mcp.json"), `{"mcpServers": {"broken": {"command": "/nonexistent/robota-test-mcp"}}}`)
	transport, _ := mcpTestServer(t)
	a, err := Assemble(context.Background(), Options{Cwd: dir, Home: home, Env: envOf(nil), Now: fixedNow, NewID: ids(),
		MCPConfigs: []string{`{"mcpServers": {"test": {"type": "sdk"}}}`}, StrictMCPConfig: true, MCPSDKTransport: transport})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(context.Background(), "other")
	if len(a.MCPServers) != 1 || a.MCPServers[0].Name != "test" || a.MCPServers[0].Status != "connected" {
		t.Errorf("MCPServers = %+v, want only the --mcp-config server", a.MCPServers)
	}
}

func TestBadMCPConfigIsAConfigurationError(t *testing.T) {
	dir, home := project(t, mcpScript, "")
	writeFile(t, filepath.Join(dir, ".mcp.json"), `{"mcpServers": {"x": {}}}`)
	_, err := Assemble(context.Background(), Options{Cwd: dir, Home: home, Env: envOf(nil), Now: fixedNow, NewID: ids()})
	if err == nil || !strings.Contains(err.Error(), ".mcp.json") || !strings.Contains(err.Error(), `"x" has no command`) {
		t.Errorf("err = %v", err)
	}
}

// A project's .mcp.json server that the settings' disabledMcpjsonServers names is never
// started (Claude Code 2.1.197 in print mode starts the others); the warning says why.
func TestDisabledMcpjsonServersAreNotStarted(t *testing.T) {
	dir, home := project(t, mcpScript, `, "disabledMcpjsonServers": ["off"]`)
	marker := filepath.Join(dir, "started")
	writeFile(t, filepath.Join(dir, ".mcp.json"), `{"mcpServers": {"off": {"command": "/bin/sh", "args": ["-c", "touch `+marker+`; sleep 5"]}}}`)
	transport, _ := mcpTestServer(t)
	a, err := Assemble(context.Background(), Options{Cwd: dir, Home: home, Env: envOf(nil), Now: fixedNow, NewID: ids(),
		MCPConfigs: []string{`{"mcpServers": {"test": {"type": "sdk"}}}`}, MCPSDKTransport: transport})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(context.Background(), "other")
	if len(a.MCPServers) != 1 || a.MCPServers[0].Name != "test" {
		t.Errorf("MCPServers = %+v, want only the server not disabled", a.MCPServers)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the disabled server's command ran")
	}
	if !strings.Contains(strings.Join(a.Warnings, "\n"), `MCP server "off" of .mcp.json is not started`) {
		t.Errorf("warnings %q do not say the server was disabled", a.Warnings)
	}
}

package mcp

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

type echoIn struct {
	Text string `json:"text" jsonschema:"what to echo"`
}

// testServer is an in-memory MCP server with an echo tool (read-only), a failing tool
// and a tool whose name needs normalising; calls records what it was asked.
func testServer(t *testing.T, calls chan<- string) *sdk.Server {
	t.Helper()
	s := sdk.NewServer(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "echoes text", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *sdk.CallToolRequest, in echoIn) (*sdk.CallToolResult, any, error) {
			calls <- "echo:" + in.Text
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo: " + in.Text}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "fail"},
		func(_ context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			calls <- "fail"
			return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: "it broke"}}}, nil, nil
		})
	sdk.AddTool(s, &sdk.Tool{Name: "do.it"},
		func(_ context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "a"}, &sdk.ImageContent{MIMEType: "image/png", Data: []byte("xyz")}}}, nil, nil
		})
	return s
}

// inMemory connects the "sdk" servers named in servers to in-memory server sessions.
func inMemory(t *testing.T, servers map[string]*sdk.Server) func(string) (sdk.Transport, error) {
	return func(name string) (sdk.Transport, error) {
		s, ok := servers[name]
		if !ok {
			// Nobody answers: the client's initialize waits until its timeout.
			c1, _ := net.Pipe()
			return &sdk.IOTransport{Reader: c1, Writer: c1}, nil
		}
		ct, st := sdk.NewInMemoryTransports()
		ss, err := s.Connect(context.Background(), st, nil)
		if err != nil {
			t.Fatalf("server connect: %v", err)
		}
		t.Cleanup(func() { ss.Close() })
		return ct, nil
	}
}

func toolByName(set *Set, name string) llm.Tool {
	for _, tl := range set.Tools() {
		if tl.Schema().Name == name {
			return tl
		}
	}
	return nil
}

func TestConnectOffersToolsAndCallsThem(t *testing.T) {
	calls := make(chan string, 10)
	set := Connect(context.Background(), []Server{
		{Name: "test", Config: ServerConfig{Type: "sdk"}},
		{Name: "missing", Config: ServerConfig{Type: "stdio", Command: "/nonexistent/robota-mcp-server"}},
	}, Options{SDKTransport: inMemory(t, map[string]*sdk.Server{"test": testServer(t, calls)})})
	defer set.Close()

	st := set.Status()
	if len(st) != 2 || st[0].Name != "test" || st[0].Status != StatusConnected || st[1].Name != "missing" || st[1].Status != StatusFailed {
		t.Fatalf("status = %+v", st)
	}
	if st[1].Err == nil || !strings.Contains(st[1].Err.Error(), "/nonexistent/robota-mcp-server") {
		t.Errorf("failed server error = %v, want it to name the command", st[1].Err)
	}
	if w := strings.Join(set.Warnings(), "\n"); !strings.Contains(w, `MCP server "missing" failed to start`) {
		t.Errorf("warnings = %q", w)
	}
	var names []string
	for _, tl := range set.Tools() {
		names = append(names, tl.Schema().Name)
	}
	if got := strings.Join(names, ","); got != "mcp__test__do_it,mcp__test__echo,mcp__test__fail" {
		t.Fatalf("tools = %s", got)
	}

	echo := toolByName(set, "mcp__test__echo")
	var schema map[string]any
	if err := json.Unmarshal(echo.Schema().InputSchema, &schema); err != nil || schema["type"] != "object" {
		t.Fatalf("schema = %s (%v)", echo.Schema().InputSchema, err)
	}
	if props, _ := schema["properties"].(map[string]any); props["text"] == nil {
		t.Errorf("schema has no text property: %s", echo.Schema().InputSchema)
	}
	if echo.Schema().Description != "echoes text" {
		t.Errorf("description = %q", echo.Schema().Description)
	}
	res := echo.Execute(context.Background(), json.RawMessage(`{"text":"hi"}`))
	if !res.Success || res.Output != "echo: hi" {
		t.Errorf("echo result = %+v", res)
	}
	if got := <-calls; got != "echo:hi" {
		t.Errorf("server saw %q", got)
	}

	res = toolByName(set, "mcp__test__fail").Execute(context.Background(), json.RawMessage(`{}`))
	if res.Success || res.Error != "it broke" {
		t.Errorf("isError result = %+v, want a failure with the content", res)
	}
	res = toolByName(set, "mcp__test__do_it").Execute(context.Background(), nil)
	if !res.Success || res.Output != "a\n[image image/png, 3 bytes]" {
		t.Errorf("mixed content = %+v", res)
	}

	// Only the read-only tool shares a batch.
	type cs interface{ ConcurrencySafe(json.RawMessage) bool }
	if !echo.(cs).ConcurrencySafe(nil) || toolByName(set, "mcp__test__fail").(cs).ConcurrencySafe(nil) {
		t.Error("ConcurrencySafe must follow readOnlyHint")
	}

	if err := set.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	res = echo.Execute(context.Background(), json.RawMessage(`{"text":"late"}`))
	if res.Success || !strings.Contains(res.Error, `MCP server "test"`) {
		t.Errorf("call after close = %+v, want a failure naming the server", res)
	}
	if err := set.Close(); err != nil {
		t.Errorf("second close: %v", err)
	}
}

func TestConnectBoundsEachServer(t *testing.T) {
	calls := make(chan string, 10)
	start := time.Now()
	set := Connect(context.Background(), []Server{
		{Name: "silent", Config: ServerConfig{Type: "sdk"}},
		{Name: "test", Config: ServerConfig{Type: "sdk"}},
	}, Options{StartTimeout: 300 * time.Millisecond,
		SDKTransport: inMemory(t, map[string]*sdk.Server{"test": testServer(t, calls)})})
	defer set.Close()
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("Connect took %v with a 300ms start timeout", d)
	}
	st := set.Status()
	if st[0].Status != StatusFailed || !strings.Contains(st[0].Err.Error(), "did not start within 300ms") {
		t.Errorf("silent server = %+v", st[0])
	}
	if st[1].Status != StatusConnected || len(set.Tools()) != 3 {
		t.Errorf("the other server must still connect: %+v, %d tools", st[1], len(set.Tools()))
	}
}

func TestSDKServerWithoutTransportFails(t *testing.T) {
	set := Connect(context.Background(), []Server{{Name: "sdkonly", Config: ServerConfig{Type: "sdk"}}}, Options{})
	defer set.Close()
	if st := set.Status(); st[0].Status != StatusFailed || st[0].Err != ErrNoSDKTransport {
		t.Errorf("status = %+v", st)
	}
}

func TestToolName(t *testing.T) {
	for _, tc := range []struct{ server, tool, want string }{
		{"test", "echo", "mcp__test__echo"},
		{"my server", "do.it/now", "mcp__my_server__do_it_now"},
		{"a-b", "c_d", "mcp__a-b__c_d"},
	} {
		if got := ToolName(tc.server, tc.tool); got != tc.want {
			t.Errorf("ToolName(%q, %q) = %q, want %q", tc.server, tc.tool, got, tc.want)
		}
	}
}

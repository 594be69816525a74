// Command mcpserver is a tiny MCP stdio server for the integration tests: two tools,
// echo and danger, each appending its call to the file named by $MCP_CALLS_FILE, so a
// test can tell which calls reached the server.
package main

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type echoIn struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

type dangerIn struct {
	Target string `json:"target,omitempty" jsonschema:"what to destroy"`
}

func record(call string) {
	path := os.Getenv("MCP_CALLS_FILE")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		log.Printf("record %s: %v", call, err)
		return
	}
	defer f.Close()
	fmt.Fprintln(f, call)
}

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "robota-test", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes the text back.", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			record("echo " + in.Text)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + in.Text}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "danger", Description: "Destroys things."},
		func(_ context.Context, _ *mcp.CallToolRequest, in dangerIn) (*mcp.CallToolResult, any, error) {
			record("danger " + in.Target)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "destroyed " + in.Target}}}, nil, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}

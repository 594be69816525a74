package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// maxToolName is the longest tool name the model APIs accept.
const maxToolName = 64

// ToolName is the name the model sees for tool of server: mcp__server__tool, every
// character outside [A-Za-z0-9_-] replaced by _.
func ToolName(server, tool string) string {
	return "mcp__" + normalize(server) + "__" + normalize(tool)
}

func normalize(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			return r
		}
		return '_'
	}, s)
}

// tool is one MCP server tool as an llm.Tool.
type tool struct {
	cs       *sdk.ClientSession
	server   string
	remote   string // the tool's name on the server
	schema   llm.ToolSchema
	readOnly bool
}

func newTool(cs *sdk.ClientSession, server, name string, t *sdk.Tool) *tool {
	schema, err := json.Marshal(t.InputSchema)
	if err != nil || t.InputSchema == nil || string(schema) == "null" {
		schema = json.RawMessage(`{"type":"object"}`)
	}
	return &tool{cs: cs, server: server, remote: t.Name,
		schema:   llm.ToolSchema{Name: name, Description: t.Description, InputSchema: schema},
		readOnly: t.Annotations != nil && t.Annotations.ReadOnlyHint}
}

func (t *tool) Schema() llm.ToolSchema { return t.schema }

// ConcurrencySafe: only a tool its server marks read-only runs beside others.
func (t *tool) ConcurrencySafe(json.RawMessage) bool { return t.readOnly }

func (t *tool) Execute(ctx context.Context, args json.RawMessage) llm.ToolResult {
	var arguments any = map[string]any{}
	if len(strings.TrimSpace(string(args))) > 0 && string(args) != "null" {
		if !json.Valid(args) {
			return llm.ToolFailure(fmt.Sprintf("MCP tool %s: arguments are not valid JSON", t.schema.Name))
		}
		arguments = args
	}
	res, err := t.cs.CallTool(ctx, &sdk.CallToolParams{Name: t.remote, Arguments: arguments})
	if err != nil {
		return llm.ToolFailure(fmt.Sprintf("MCP server %q: tool %q: %v", t.server, t.remote, err))
	}
	text := resultText(res)
	if res.IsError {
		if text == "" {
			text = fmt.Sprintf("MCP server %q: tool %q failed", t.server, t.remote)
		}
		r := llm.ToolFailure(text)
		r.Metadata = map[string]any{"mcpServer": t.server}
		return r
	}
	return llm.ToolResult{Success: true, Output: text, Metadata: map[string]any{"mcpServer": t.server}}
}

// resultText is what the model reads of a call's result.
func resultText(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.EmbeddedResource:
			if c.Resource == nil {
				continue
			}
			if c.Resource.Text != "" {
				parts = append(parts, c.Resource.Text)
			} else {
				parts = append(parts, fmt.Sprintf("[resource %s (%s, %d bytes)]", c.Resource.URI, c.Resource.MIMEType, len(c.Resource.Blob)))
			}
		case *sdk.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource link %s %s]", c.Name, c.URI))
		case *sdk.ImageContent:
			parts = append(parts, fmt.Sprintf("[image %s, %d bytes]", c.MIMEType, len(c.Data)))
		case *sdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s, %d bytes]", c.MIMEType, len(c.Data)))
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			return string(b)
		}
	}
	return strings.Join(parts, "\n")
}

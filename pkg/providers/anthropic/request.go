package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/anthropics/anthropic-sdk-go"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// webFetchBeta is sent with requests that attach the hosted web_fetch tool.
const webFetchBeta = "web-fetch-2025-09-10"

// builtParams is a request plus what the transport must know about it.
type builtParams struct {
	anthropic.MessageNewParams
	usesWebFetch bool
}

// params translates req into Messages API parameters.
func (p *Provider) params(req llm.ChatRequest, caps llm.Capabilities) (builtParams, error) {
	model := firstNonEmpty(req.Model, p.opts.Model, DefaultModel)
	maxTokens := firstPositive(req.MaxTokens, p.opts.MaxTokens, DefaultMaxTokens)
	out := builtParams{MessageNewParams: anthropic.MessageNewParams{Model: anthropic.Model(model)}}
	mp := &out.MessageNewParams
	if budget := p.opts.ThinkingBudget; budget > 0 {
		if maxTokens <= budget {
			maxTokens = budget + DefaultMaxTokens
		}
		mp.Thinking = anthropic.ThinkingConfigParamOfEnabled(int64(budget))
	} else if req.Temperature != nil {
		// The API rejects a temperature together with extended thinking.
		mp.Temperature = anthropic.Float(*req.Temperature)
	}
	mp.MaxTokens = int64(maxTokens)
	caching := !p.opts.DisablePromptCaching

	system, rest := llm.SplitSystem(req.Messages)
	if system != "" {
		block := anthropic.TextBlockParam{Text: system}
		if caching {
			block.CacheControl = anthropic.NewCacheControlEphemeralParam()
		}
		mp.System = []anthropic.TextBlockParam{block}
	}
	msgs, err := messages(rest)
	if err != nil {
		return out, err
	}
	if caching && len(msgs) > 0 {
		markLastCacheable(msgs[len(msgs)-1].Content)
	}
	mp.Messages = msgs

	for _, ts := range req.Tools {
		schema, err := inputSchema(ts)
		if err != nil {
			return out, err
		}
		tool := anthropic.ToolParam{Name: ts.Name, InputSchema: schema}
		if ts.Description != "" {
			tool.Description = anthropic.String(ts.Description)
		}
		mp.Tools = append(mp.Tools, anthropic.ToolUnionParam{OfTool: &tool})
	}
	// Hosted tools ride along on ordinary rounds once enabled, and on any call that asks
	// for them; forced summaries and compaction stay tool-free unless they ask.
	asked := req.NativeWebTools
	ordinary := req.Purpose == llm.PurposeChat
	if (asked != nil && asked.WebSearch) || (ordinary && caps.NativeWebTools.WebSearch.Enabled) {
		ws := p.opts.WebSearch
		tool := anthropic.WebSearchTool20250305Param{AllowedDomains: ws.AllowedDomains, BlockedDomains: ws.BlockedDomains}
		if ws.MaxUses > 0 {
			tool.MaxUses = anthropic.Int(int64(ws.MaxUses))
		}
		mp.Tools = append(mp.Tools, anthropic.ToolUnionParam{OfWebSearchTool20250305: &tool})
	}
	if (asked != nil && asked.WebFetch) || (ordinary && caps.NativeWebTools.WebFetch.Enabled) {
		wf := p.opts.WebFetch
		tool := anthropic.WebFetchTool20250910Param{AllowedDomains: wf.AllowedDomains, BlockedDomains: wf.BlockedDomains}
		if wf.MaxUses > 0 {
			tool.MaxUses = anthropic.Int(int64(wf.MaxUses))
		}
		mp.Tools = append(mp.Tools, anthropic.ToolUnionParam{OfWebFetchTool20250910: &tool})
		out.usesWebFetch = true
	}
	if caching && len(mp.Tools) > 0 {
		if cc := mp.Tools[len(mp.Tools)-1].GetCacheControl(); cc != nil {
			*cc = anthropic.NewCacheControlEphemeralParam()
		}
	}
	return out, nil
}

// messages converts non-system history into alternating user/assistant messages: tool
// messages become tool_result blocks of a user message, and consecutive messages of one
// role are merged.
func messages(history []llm.Message) ([]anthropic.MessageParam, error) {
	var out []anthropic.MessageParam
	push := func(role anthropic.MessageParamRole, blocks []anthropic.ContentBlockParamUnion) {
		if len(blocks) == 0 {
			return
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Content = append(out[n-1].Content, blocks...)
			return
		}
		out = append(out, anthropic.MessageParam{Role: role, Content: blocks})
	}
	for _, m := range history {
		switch m.Role {
		case llm.RoleUser:
			push(anthropic.MessageParamRoleUser, userBlocks(m))
		case llm.RoleTool:
			push(anthropic.MessageParamRoleUser, userBlocks(m))
		case llm.RoleAssistant:
			blocks, err := assistantBlocks(m)
			if err != nil {
				return nil, err
			}
			push(anthropic.MessageParamRoleAssistant, blocks)
		default:
			return nil, llm.Errorf(llm.CodeValidation, "anthropic: message %s has unsupported role %q", m.ID, m.Role)
		}
	}
	return out, nil
}

func userBlocks(m llm.Message) []anthropic.ContentBlockParamUnion {
	var blocks []anthropic.ContentBlockParamUnion
	for _, part := range m.Content {
		switch {
		case part.Type == llm.PartToolResult && part.ToolResult != nil:
			blocks = append(blocks, toolResultBlock(*part.ToolResult))
		case part.Type == llm.PartText && part.Text != "":
			blocks = append(blocks, anthropic.NewTextBlock(part.Text))
		}
	}
	return blocks
}

func toolResultBlock(r llm.ToolResultPart) anthropic.ContentBlockParamUnion {
	block := anthropic.ToolResultBlockParam{ToolUseID: r.ToolCallID}
	if r.Content != "" { // the API rejects empty text blocks
		block.Content = []anthropic.ToolResultBlockParamContentUnion{{OfText: &anthropic.TextBlockParam{Text: r.Content}}}
	}
	if r.IsError {
		block.IsError = anthropic.Bool(true)
	}
	return anthropic.ContentBlockParamUnion{OfToolResult: &block}
}

func assistantBlocks(m llm.Message) ([]anthropic.ContentBlockParamUnion, error) {
	var blocks []anthropic.ContentBlockParamUnion
	for _, part := range m.Content {
		switch part.Type {
		case llm.PartThinking:
			switch {
			case part.Signature == "":
				// Unsigned reasoning came from another provider; the API would reject it.
			case part.Text == "":
				blocks = append(blocks, anthropic.NewRedactedThinkingBlock(part.Signature))
			default:
				blocks = append(blocks, anthropic.NewThinkingBlock(part.Signature, part.Text))
			}
		case llm.PartText:
			if part.Text != "" {
				blocks = append(blocks, anthropic.NewTextBlock(part.Text))
			}
		case llm.PartToolUse:
			if part.ToolCall == nil {
				continue
			}
			tc := part.ToolCall
			blocks = append(blocks, anthropic.NewToolUseBlock(tc.ID, toolInput(tc.Input), tc.Name))
		}
	}
	return blocks, nil
}

// toolInput returns call arguments as the JSON object the API requires; arguments that
// are not an object (a model's malformed output) are kept under "_raw".
func toolInput(in json.RawMessage) json.RawMessage {
	trimmed := bytes.TrimSpace(in)
	if len(trimmed) == 0 {
		return json.RawMessage(`{}`)
	}
	if trimmed[0] == '{' && json.Valid(trimmed) {
		return json.RawMessage(trimmed)
	}
	var v any
	if json.Unmarshal(trimmed, &v) != nil {
		v = string(trimmed)
	}
	b, _ := json.Marshal(map[string]any{"_raw": v})
	return b
}

// markLastCacheable puts a cache breakpoint on the last block that accepts one.
func markLastCacheable(blocks []anthropic.ContentBlockParamUnion) {
	for i := len(blocks) - 1; i >= 0; i-- {
		if blocks[i].OfThinking != nil || blocks[i].OfRedactedThinking != nil {
			continue
		}
		if cc := blocks[i].GetCacheControl(); cc != nil {
			*cc = anthropic.NewCacheControlEphemeralParam()
			return
		}
	}
}

// inputSchema converts a JSON Schema object into the API's tool input schema, keeping
// every keyword besides type/properties/required as an extra field.
func inputSchema(ts llm.ToolSchema) (anthropic.ToolInputSchemaParam, error) {
	var schema anthropic.ToolInputSchemaParam
	if len(bytes.TrimSpace(ts.InputSchema)) == 0 {
		schema.Properties = map[string]any{}
		return schema, nil
	}
	var m map[string]any
	if err := json.Unmarshal(ts.InputSchema, &m); err != nil {
		return schema, llm.NewError(llm.CodeValidation, fmt.Sprintf("anthropic: tool %s: input schema is not a JSON object", ts.Name), err)
	}
	schema.Properties = m["properties"]
	if schema.Properties == nil {
		schema.Properties = map[string]any{}
	}
	if req, ok := m["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				schema.Required = append(schema.Required, s)
			}
		}
	}
	for k, v := range m {
		switch k {
		case "type", "properties", "required":
		default:
			if schema.ExtraFields == nil {
				schema.ExtraFields = map[string]any{}
			}
			schema.ExtraFields[k] = v
		}
	}
	return schema, nil
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

func firstPositive(vals ...int) int {
	for _, v := range vals {
		if v > 0 {
			return v
		}
	}
	return 0
}

package openai

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// ExtraContentKey is the message metadata key holding server-specific tool-call data
// (the "extra_content" object of a tool call, e.g. Gemini thought signatures), by call id.
const ExtraContentKey = "toolCallExtraContent"

// params translates req into Chat Completions parameters.
func (p *Provider) params(req llm.ChatRequest) (openai.ChatCompletionNewParams, error) {
	model := req.Model
	if model == "" {
		model = p.opts.Model
	}
	if model == "" {
		return openai.ChatCompletionNewParams{}, llm.NewError(llm.CodeConfiguration,
			fmt.Sprintf("%s: no model: name one in the request or the provider profile", p.name), nil)
	}
	params := openai.ChatCompletionNewParams{Model: shared.ChatModel(model)}
	if !p.opts.DisableStreamUsage {
		params.StreamOptions.IncludeUsage = openai.Bool(true)
	}
	if req.MaxTokens > 0 {
		if p.opts.MaxTokensField == LegacyMaxTokens {
			params.MaxTokens = openai.Int(int64(req.MaxTokens))
		} else {
			params.MaxCompletionTokens = openai.Int(int64(req.MaxTokens))
		}
	}
	if req.Temperature != nil {
		params.Temperature = openai.Float(*req.Temperature)
	}
	if p.opts.ReasoningEffort != "" {
		params.ReasoningEffort = shared.ReasoningEffort(p.opts.ReasoningEffort)
	}
	system, rest := llm.SplitSystem(req.Messages)
	if system != "" {
		params.Messages = append(params.Messages, openai.SystemMessage(system))
	}
	for _, m := range rest {
		msgs, err := message(m)
		if err != nil {
			return params, err
		}
		params.Messages = append(params.Messages, msgs...)
	}
	for _, t := range req.Tools {
		fn := shared.FunctionDefinitionParam{Name: t.Name}
		if t.Description != "" {
			fn.Description = openai.String(t.Description)
		}
		schema := map[string]any{"type": "object", "properties": map[string]any{}}
		if len(bytes.TrimSpace(t.InputSchema)) > 0 {
			schema = nil
			if err := json.Unmarshal(t.InputSchema, &schema); err != nil || schema == nil {
				return params, llm.NewError(llm.CodeValidation, fmt.Sprintf("%s: tool %s: input schema is not a JSON object", p.name, t.Name), err)
			}
		}
		fn.Parameters = shared.FunctionParameters(schema)
		params.Tools = append(params.Tools, openai.ChatCompletionFunctionTool(fn))
	}
	return params, nil
}

// message converts one history message; thinking is not sent back (Chat Completions has
// no field for it).
func message(m llm.Message) ([]openai.ChatCompletionMessageParamUnion, error) {
	switch m.Role {
	case llm.RoleUser:
		return []openai.ChatCompletionMessageParamUnion{openai.UserMessage(m.Text())}, nil
	case llm.RoleTool:
		var out []openai.ChatCompletionMessageParamUnion
		for _, part := range m.Content {
			if r := part.ToolResult; part.Type == llm.PartToolResult && r != nil {
				out = append(out, openai.ToolMessage(r.Content, r.ToolCallID))
			}
		}
		return out, nil
	case llm.RoleAssistant:
		var a openai.ChatCompletionAssistantMessageParam
		if text := m.Text(); text != "" {
			a.Content.OfString = openai.String(text)
		}
		extras := extraContent(m.Metadata)
		for _, tc := range m.ToolCalls() {
			args := string(tc.Input)
			if args == "" {
				args = "{}"
			}
			call := openai.ChatCompletionMessageFunctionToolCallParam{ID: tc.ID,
				Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: args}}
			if extra, ok := extras[tc.ID]; ok {
				call.SetExtraFields(map[string]any{"extra_content": extra})
			}
			a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{OfFunction: &call})
		}
		if a.Content.OfString.Valid() || len(a.ToolCalls) > 0 {
			return []openai.ChatCompletionMessageParamUnion{{OfAssistant: &a}}, nil
		}
		return nil, nil
	}
	return nil, llm.Errorf(llm.CodeValidation, "openai: message %s has unsupported role %q", m.ID, m.Role)
}

// extraContent reads ExtraContentKey from metadata, as stored by this package or after a
// JSON round trip through a session file.
func extraContent(md map[string]any) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	switch v := md[ExtraContentKey].(type) {
	case map[string]json.RawMessage:
		return v
	case map[string]any:
		for id, val := range v {
			if b, err := json.Marshal(val); err == nil {
				out[id] = b
			}
		}
	}
	return out
}

// normalizeErrorBody rewrites error bodies that carry {"error": "text"} (LM Studio,
// some proxies) into the {"error": {"message": "text"}} envelope the SDK decodes, so the
// status code and message survive.
func normalizeErrorBody(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	res, err := next(req)
	if err != nil || res == nil || res.StatusCode < 400 || res.Body == nil {
		return res, err
	}
	body, rerr := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if rerr != nil {
		body = nil
	}
	var doc map[string]any
	if json.Unmarshal(body, &doc) == nil {
		if msg, ok := doc["error"].(string); ok {
			body, _ = json.Marshal(map[string]any{"error": map[string]any{"message": msg}})
		}
	}
	res.Body = io.NopCloser(bytes.NewReader(body))
	res.ContentLength = int64(len(body))
	return res, nil
}

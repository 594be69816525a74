// Package openaitest renders the provider conformance suite's scenarios as Chat
// Completions streams, for the tests of the openai provider wherever it runs (in
// process, or behind the provider plugin).
package openaitest

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/robota-sdk/robota-go/pkg/providers/internal/ssetest"
	"github.com/robota-sdk/robota-go/pkg/providers/providertest"
)

type obj = map[string]any

func data(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return "data: " + string(b) + "\n\n"
}

func chunk(delta obj, finish any) string {
	return data(obj{"id": "chatcmpl-conf", "object": "chat.completion.chunk", "created": 1767225600, "model": "gpt-test",
		"choices": []obj{{"index": 0, "delta": delta, "finish_reason": finish}}})
}

// ScenarioReply renders a conformance scenario as chat.completion.chunk events.
func ScenarioReply(sc providertest.Scenario) ssetest.Reply {
	if f := sc.Fail; f != nil && f.Status > 0 {
		h := http.Header{}
		if f.RetryAfter > 0 {
			h.Set("Retry-After", strconv.Itoa(int(f.RetryAfter/time.Second)))
		}
		body, _ := json.Marshal(obj{"error": obj{"message": f.Message, "type": "error", "param": nil, "code": nil}})
		return ssetest.Reply{Status: f.Status, Header: h, Body: string(body)}
	}
	ev := []string{chunk(obj{"role": "assistant", "content": ""}, nil)}
	if sc.Thinking != "" {
		ev = append(ev, chunk(obj{"reasoning_content": sc.Thinking}, nil))
	}
	for _, c := range sc.Text {
		ev = append(ev, chunk(obj{"content": c}, nil))
	}
	if sc.Stall {
		return ssetest.Reply{Events: ev, Stall: true}
	}
	if f := sc.Fail; f != nil {
		return ssetest.Reply{Events: append(ev, data(obj{"error": obj{"message": f.Message, "type": "server_error"}}))}
	}
	for i, c := range sc.ToolCalls {
		half := len(c.Input) / 2
		ev = append(ev,
			chunk(obj{"tool_calls": []obj{{"index": i, "id": c.ID, "type": "function", "function": obj{"name": c.Name, "arguments": ""}}}}, nil),
			chunk(obj{"tool_calls": []obj{{"index": i, "function": obj{"arguments": string(c.Input[:half])}}}}, nil),
			chunk(obj{"tool_calls": []obj{{"index": i, "function": obj{"arguments": string(c.Input[half:])}}}}, nil))
	}
	finish := "stop"
	if len(sc.ToolCalls) > 0 {
		finish = "tool_calls"
	}
	ev = append(ev, chunk(obj{}, finish))
	if u := sc.Usage; u != nil {
		ev = append(ev, data(obj{"id": "chatcmpl-conf", "object": "chat.completion.chunk", "created": 1767225600, "model": "gpt-test",
			"choices": []obj{}, "usage": obj{"prompt_tokens": u.InputTokens, "completion_tokens": u.OutputTokens,
				"total_tokens": u.InputTokens + u.OutputTokens, "prompt_tokens_details": obj{"cached_tokens": u.CacheReadInputTokens}}}))
	}
	return ssetest.Reply{Events: append(ev, "data: [DONE]\n\n")}
}

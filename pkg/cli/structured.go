package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// --json-schema, as Claude Code does it: the model is given a StructuredOutput tool whose
// input schema is the given schema and is told to call it with its final answer; the
// input it called the tool with (validated against the schema) is the result line's
// structured_output. A call whose input does not validate fails with the reason, so the
// model can call again.

// structuredOutputTool is the name the model sees and the rule that lets it run unasked.
const structuredOutputTool = "StructuredOutput"

const structuredOutputPrompt = "When you have the final answer, call the " + structuredOutputTool +
	" tool exactly once with it: its input must match the tool's schema."

type structuredOutput struct {
	schema   json.RawMessage
	resolved *jsonschema.Resolved

	mu  sync.Mutex
	got json.RawMessage
}

// newStructuredOutput checks the schema of --json-schema (a bad one is a usage error).
func newStructuredOutput(schema string) (*structuredOutput, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(schema), &s); err != nil {
		return nil, fmt.Errorf("--json-schema: %w", err)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("--json-schema: %w", err)
	}
	return &structuredOutput{schema: json.RawMessage(schema), resolved: resolved}, nil
}

func (t *structuredOutput) Schema() llm.ToolSchema {
	return llm.ToolSchema{Name: structuredOutputTool, InputSchema: t.schema,
		Description: "Return your final answer as structured output. Call it exactly once, at the end; the input must match the schema."}
}

func (t *structuredOutput) Execute(_ context.Context, args json.RawMessage) llm.ToolResult {
	var instance any
	if err := json.Unmarshal(args, &instance); err != nil {
		return llm.ToolFailure("the input is not JSON: " + err.Error())
	}
	if err := t.resolved.Validate(instance); err != nil {
		return llm.ToolFailure("the input does not match the schema: " + err.Error() + "; call " + structuredOutputTool + " again with corrected input")
	}
	t.mu.Lock()
	t.got = append(json.RawMessage(nil), args...)
	t.mu.Unlock()
	return llm.ToolSuccess("Structured output provided successfully")
}

// value is the last valid input, nil when the model gave none.
func (t *structuredOutput) value() json.RawMessage {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.got
}

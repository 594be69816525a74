package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

type readParams struct {
	FilePath string   `json:"file_path" jsonschema:"absolute path of the file to read"`
	Offset   int      `json:"offset,omitempty"`
	Limit    int      `json:"limit,omitempty"`
	Filter   *filter  `json:"filter,omitempty"`
	Tags     []string `json:"tags,omitempty"`
}

type filter struct {
	Pattern string `json:"pattern"`
	Lines   []int  `json:"lines,omitempty"`
}

func newReadTool(t *testing.T, calls *int, opts ...Option) *Typed[readParams] {
	t.Helper()
	tool, err := New("Read", "Reads a file", func(_ context.Context, p readParams) llm.ToolResult {
		*calls++
		return llm.ToolSuccess("read " + p.FilePath)
	}, opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return tool
}

func TestTypedToolSchemaFromStruct(t *testing.T) {
	var calls int
	s := newReadTool(t, &calls).Schema()
	if s.Name != "Read" || s.Description != "Reads a file" {
		t.Fatalf("schema name/description = %q/%q", s.Name, s.Description)
	}
	var schema struct {
		Type                 string                    `json:"type"`
		Required             []string                  `json:"required"`
		Properties           map[string]map[string]any `json:"properties"`
		AdditionalProperties any                       `json:"additionalProperties"`
	}
	if err := json.Unmarshal(s.InputSchema, &schema); err != nil {
		t.Fatalf("schema is not JSON: %v", err)
	}
	if schema.Type != "object" || len(schema.Required) != 1 || schema.Required[0] != "file_path" {
		t.Fatalf("type/required = %q/%v", schema.Type, schema.Required)
	}
	if got := schema.Properties["file_path"]["description"]; got != "absolute path of the file to read" {
		t.Fatalf("file_path description = %v", got)
	}
	if schema.AdditionalProperties != false {
		t.Fatalf("additionalProperties = %v, want false", schema.AdditionalProperties)
	}
}

func TestTypedToolValidatesArgumentsBeforeExecution(t *testing.T) {
	tests := []struct {
		name      string
		args      string
		wantField string
		wantText  string
	}{
		{"missing required field", `{}`, "file_path", "missing required parameter"},
		{"null arguments are an empty object", `null`, "file_path", "missing required parameter"},
		{"empty arguments are an empty object", ``, "file_path", "missing required parameter"},
		{"wrong top-level type", `{"file_path": 3}`, "file_path", `got "integer", want "string"`},
		{"fraction for integer", `{"file_path":"a","limit":1.5}`, "limit", `want "integer"`},
		{"wrong nested type", `{"file_path":"a","filter":{"pattern":"x","lines":["1"]}}`, "filter.lines[]", `want "integer"`},
		{"missing nested field", `{"file_path":"a","filter":{}}`, "filter.pattern", "missing required parameter"},
		{"unknown field", `{"file_path":"a","bogus":1}`, "bogus", "unknown parameter"},
		{"not an object", `[1,2]`, "", "want \"object\""},
		{"malformed JSON", `{"file_path":`, "", "not valid JSON"},
		{"integer overflow", `{"file_path":"a","limit":1e40}`, "limit", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var calls int
			tool := newReadTool(t, &calls)
			res := tool.Execute(context.Background(), json.RawMessage(tc.args))
			if res.Success {
				t.Fatalf("Execute succeeded, want failure; output %q", res.Output)
			}
			if calls != 0 {
				t.Fatalf("tool function ran %d times on invalid input", calls)
			}
			if res.Metadata["errorCode"] != ErrorCodeInvalidArguments {
				t.Fatalf("errorCode = %v", res.Metadata["errorCode"])
			}
			if res.Metadata["field"] != tc.wantField {
				t.Fatalf("field = %q, want %q (error %q)", res.Metadata["field"], tc.wantField, res.Error)
			}
			if tc.wantField != "" && !strings.Contains(res.Error, `"`+tc.wantField+`"`) {
				t.Fatalf("error %q does not name field %q", res.Error, tc.wantField)
			}
			if !strings.Contains(res.Error, tc.wantText) {
				t.Fatalf("error %q does not contain %q", res.Error, tc.wantText)
			}
			_, err := tool.Decode(json.RawMessage(tc.args))
			if !errors.Is(err, ErrInvalidArguments) {
				t.Fatalf("Decode error %v is not ErrInvalidArguments", err)
			}
		})
	}
}

func TestTypedToolRunsWithValidArguments(t *testing.T) {
	var calls int
	tool := newReadTool(t, &calls)
	res := tool.Execute(context.Background(), json.RawMessage(`{"file_path":"/a.txt","limit":10,"filter":{"pattern":"x"}}`))
	if !res.Success || res.Output != "read /a.txt" || calls != 1 {
		t.Fatalf("result = %+v, calls = %d", res, calls)
	}
}

func TestTypedToolAdditionalPropertiesOption(t *testing.T) {
	var calls int
	tool := newReadTool(t, &calls, WithAdditionalProperties())
	if !strings.Contains(string(tool.Schema().InputSchema), `"additionalProperties":true`) {
		t.Fatalf("schema %s does not allow additional properties", tool.Schema().InputSchema)
	}
	res := tool.Execute(context.Background(), json.RawMessage(`{"file_path":"/a","extra":1}`))
	if !res.Success {
		t.Fatalf("unknown parameter rejected: %s", res.Error)
	}
}

func TestTypedToolRecoversPanics(t *testing.T) {
	tool, err := New("Boom", "panics", func(context.Context, struct{}) llm.ToolResult { panic("kaboom") })
	if err != nil {
		t.Fatal(err)
	}
	res := tool.Execute(context.Background(), nil)
	if res.Success || !strings.Contains(res.Error, "kaboom") || res.Metadata["errorCode"] != ErrorCodeToolPanic {
		t.Fatalf("result = %+v", res)
	}
}

func TestTypedToolRejectsNonStructParams(t *testing.T) {
	_, err := New("Bad", "", func(context.Context, string) llm.ToolResult { return llm.ToolResult{} })
	if !errors.Is(err, ErrSchema) {
		t.Fatalf("err = %v, want ErrSchema", err)
	}
	_, err = New("Bad", "", func(context.Context, struct{ C chan int }) llm.ToolResult { return llm.ToolResult{} })
	if !errors.Is(err, ErrSchema) {
		t.Fatalf("err = %v, want ErrSchema", err)
	}
}

func FuzzTypedToolArguments(f *testing.F) {
	for _, s := range []string{`{}`, `{"file_path":"a"}`, `{"file_path":1}`, `[`, `null`, `{"filter":{"lines":[1,"a"]}}`, `"x"`} {
		f.Add([]byte(s))
	}
	tool, err := New("Read", "", func(_ context.Context, p readParams) llm.ToolResult { return llm.ToolSuccess(p.FilePath) })
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		res := tool.Execute(context.Background(), args)
		if !res.Success && res.Error == "" {
			t.Fatalf("failed result without error text for %q", args)
		}
	})
}

func TestDescribeValidationErrorBounds(t *testing.T) {
	tests := []struct{ in, want string }{
		{"validating root: validating /properties/n: minimum: 0/1 is less than 1.000000", "must be at least 1 (got 0)"},
		{"validating root: validating /properties/n: maximum: 600001/1 is greater than 600000.000000", "must be at most 600000 (got 600001)"},
		{"validating root: validating /properties/n: exclusiveMinimum: 1/2 is less than or equal to 0.500000", "must be greater than 0.5 (got 0.5)"},
		{`validating root: validating /properties/q: minLength: "g" contains 1 Unicode code points, fewer than 2`, "must be at least 2 characters long (got 1)"},
		{`validating root: validating /properties/q: maxLength: "long" contains 4 Unicode code points, more than 3`, "must be at most 3 characters long (got 4)"},
	}
	for _, tt := range tests {
		_, got := describeValidationError(errors.New(tt.in))
		if got != tt.want {
			t.Errorf("describe(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

type cacheParams struct {
	N int `json:"n"`
}

func cacheFn(context.Context, cacheParams) llm.ToolResult { return llm.ToolSuccess("ok") }

// A schema without an edit, or with a fixed one, is built once and shared; an edit that
// is not declared fixed runs for every tool, so state it captures is honoured.
func TestTypedSchemaIsSharedUnlessTheEditMayVary(t *testing.T) {
	a, err := New("A", "first", cacheFn)
	if err != nil {
		t.Fatal(err)
	}
	b, err := New("B", "second", cacheFn)
	if err != nil {
		t.Fatal(err)
	}
	if a.resolved != b.resolved || a.Schema().Name != "A" || b.Schema().Description != "second" {
		t.Fatalf("plain schemas not shared, or names mixed: %v %v", a.Schema(), b.Schema())
	}
	fixed := func(s *jsonschema.Schema) { min := 1.0; s.Properties["n"].Minimum = &min }
	f1, _ := New("F", "", cacheFn, WithFixedSchema(fixed))
	f2, _ := New("F", "", cacheFn, WithFixedSchema(fixed))
	if f1.resolved != f2.resolved || f1.resolved == a.resolved {
		t.Fatal("fixed edit: want one shared schema, distinct from the unedited one")
	}
	if r := f1.Execute(context.Background(), json.RawMessage(`{"n":0}`)); r.Success {
		t.Fatal("the fixed edit's minimum is not enforced")
	}
	for _, max := range []float64{3, 5} {
		tool, err := New("V", "", cacheFn, WithSchema(func(s *jsonschema.Schema) { s.Properties["n"].Maximum = &max }))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(tool.Schema().InputSchema), `"maximum":`+map[float64]string{3: "3", 5: "5"}[max]) {
			t.Fatalf("edit with captured max %v not applied: %s", max, tool.Schema().InputSchema)
		}
	}
}

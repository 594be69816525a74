package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// Func is the body of a typed tool: it receives validated, decoded parameters.
type Func[P any] func(ctx context.Context, params P) llm.ToolResult

// Option adjusts how a typed tool is built.
type Option func(*options)

type options struct {
	allowUnknown bool
	edit         func(*jsonschema.Schema)
	fixed        bool // edit depends on nothing but the schema
}

// WithAdditionalProperties makes the tool tolerate (and ignore) unknown parameters.
func WithAdditionalProperties() Option { return func(o *options) { o.allowUnknown = true } }

// WithSchema lets the caller refine the generated schema (enums, bounds, defaults) before it
// is resolved; validation uses the refined schema.
func WithSchema(edit func(*jsonschema.Schema)) Option { return func(o *options) { o.edit = edit } }

// WithFixedSchema is WithSchema for an edit that depends on nothing but the schema it is
// given (fixed bounds and enums, no captured state): the refined schema is then built once
// per process and shared by every tool built from the same P and edit, as schemas without
// an edit are.
func WithFixedSchema(edit func(*jsonschema.Schema)) Option {
	return func(o *options) { o.edit, o.fixed = edit, true }
}

// Typed is an llm.Tool whose parameters are the Go struct P.
type Typed[P any] struct {
	schema   llm.ToolSchema
	resolved *jsonschema.Resolved
	fn       Func[P]
}

var _ llm.Tool = (*Typed[struct{}])(nil)

// New builds a tool named name from P (a struct type) and fn.
func New[P any](name, description string, fn Func[P], opts ...Option) (*Typed[P], error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	// Without an edit, or with a fixed one, the schema depends on P, allowUnknown and the
	// edit's code only: it is generated and resolved once per process, not once per session
	// (the generation was most of what an idle session held). A Resolved is read-only once
	// built, so sharing it is safe.
	cacheable := o.edit == nil || o.fixed
	key := schemaKey{typ: reflect.TypeFor[P](), allowUnknown: o.allowUnknown}
	if o.edit != nil {
		key.edit = reflect.ValueOf(o.edit).Pointer()
	}
	if cacheable {
		if c, ok := schemaCache.Load(key); ok {
			sc := c.(cachedSchema)
			return &Typed[P]{schema: llm.ToolSchema{Name: name, Description: description, InputSchema: sc.raw},
				resolved: sc.resolved, fn: fn}, nil
		}
	}
	s, err := jsonschema.For[P](nil)
	if err != nil {
		return nil, fmt.Errorf("%w for tool %s: %w", ErrSchema, name, err)
	}
	if s.Type != "object" {
		return nil, fmt.Errorf("%w for tool %s: parameters must be a struct, got schema type %q", ErrSchema, name, s.Type)
	}
	if o.allowUnknown {
		s.AdditionalProperties = &jsonschema.Schema{}
	}
	if o.edit != nil {
		o.edit(s)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("%w for tool %s: %w", ErrSchema, name, err)
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("%w for tool %s: %w", ErrSchema, name, err)
	}
	if o.allowUnknown {
		// jsonschema-go marshals an empty schema as `{}`; models read `true` more easily.
		raw = bytes.Replace(raw, []byte(`"additionalProperties":{}`), []byte(`"additionalProperties":true`), 1)
	}
	if cacheable {
		schemaCache.Store(key, cachedSchema{raw: raw, resolved: resolved})
	}
	return &Typed[P]{
		schema:   llm.ToolSchema{Name: name, Description: description, InputSchema: raw},
		resolved: resolved,
		fn:       fn,
	}, nil
}

// schemaCache holds the schemas of tools built without WithSchema, by parameters type.
var schemaCache sync.Map // schemaKey → cachedSchema

type schemaKey struct {
	typ          reflect.Type
	allowUnknown bool
	edit         uintptr // code of a fixed edit
}

type cachedSchema struct {
	raw      json.RawMessage
	resolved *jsonschema.Resolved
}

// Schema implements llm.Tool.
func (t *Typed[P]) Schema() llm.ToolSchema { return t.schema }

// Decode validates args against the schema and decodes them into P. A failure is an
// *ArgumentError (errors.Is(err, ErrInvalidArguments)).
func (t *Typed[P]) Decode(args json.RawMessage) (P, error) {
	var params P
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		trimmed = []byte("{}")
	}
	var instance any
	if err := json.Unmarshal(trimmed, &instance); err != nil {
		return params, &ArgumentError{Tool: t.schema.Name, Problem: "arguments are not valid JSON: " + err.Error()}
	}
	if err := t.resolved.Validate(instance); err != nil {
		field, problem := describeValidationError(err)
		return params, &ArgumentError{Tool: t.schema.Name, Field: field, Problem: problem}
	}
	if err := json.Unmarshal(trimmed, &params); err != nil {
		ae := &ArgumentError{Tool: t.schema.Name, Problem: err.Error()}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			ae.Field = te.Field
			ae.Problem = fmt.Sprintf("cannot use %s as %s", te.Value, te.Type)
		}
		return params, ae
	}
	return params, nil
}

// Execute implements llm.Tool: validate, decode, run.
func (t *Typed[P]) Execute(ctx context.Context, args json.RawMessage) (result llm.ToolResult) {
	params, err := t.Decode(args)
	if err != nil {
		var ae *ArgumentError
		errors.As(err, &ae)
		return llm.ToolResult{
			Error: err.Error(),
			Metadata: map[string]any{
				"errorCode": ErrorCodeInvalidArguments,
				"field":     ae.Field,
			},
		}
	}
	defer func() {
		if r := recover(); r != nil {
			result = llm.ToolResult{
				Error:    fmt.Sprintf("tool %s failed unexpectedly: %v", t.schema.Name, r),
				Metadata: map[string]any{"errorCode": ErrorCodeToolPanic, "stack": string(debug.Stack())},
			}
		}
	}()
	return t.fn(ctx, params)
}

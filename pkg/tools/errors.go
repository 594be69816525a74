package tools

import (
	"errors"
	"fmt"
)

// Sentinel errors of the typed-tool helper.
var (
	// ErrInvalidArguments: the model's arguments do not match the tool's schema.
	ErrInvalidArguments = errors.New("invalid tool arguments")
	// ErrSchema: a parameters type cannot be described as a JSON schema.
	ErrSchema = errors.New("cannot build tool schema")
)

// Error codes put in ToolResult.Metadata["errorCode"].
const (
	ErrorCodeInvalidArguments = "invalid_arguments"
	ErrorCodeToolPanic        = "tool_panic"
)

// ArgumentError says which parameter of which tool was wrong and how. Field is a dotted
// path ("sub.items[]"); it is empty only when the whole argument document is malformed.
type ArgumentError struct {
	Tool    string
	Field   string
	Problem string
}

func (e *ArgumentError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("invalid input for tool %s: %s", e.Tool, e.Problem)
	}
	return fmt.Sprintf("invalid input for tool %s: parameter %q: %s", e.Tool, e.Field, e.Problem)
}

func (e *ArgumentError) Unwrap() error { return ErrInvalidArguments }

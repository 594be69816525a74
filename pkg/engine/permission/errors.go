package permission

import "errors"

// Sentinel errors. Callers match them with errors.Is; messages are wrapped with context.
var (
	// ErrInvalidRule reports a permission rule string that does not parse.
	ErrInvalidRule = errors.New("invalid permission rule")
	// ErrUnknownMode reports a permission mode (or trust level) name we do not know.
	ErrUnknownMode = errors.New("unknown permission mode")
	// ErrUnparsableCommand reports a shell command mvdan.cc/sh could not parse.
	ErrUnparsableCommand = errors.New("unparsable shell command")
)

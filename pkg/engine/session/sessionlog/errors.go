package sessionlog

import "errors"

var (
	// ErrInvalidEvent: an event name that is empty or not snake_case.
	ErrInvalidEvent = errors.New("session log: invalid event name")
	// ErrClosed: Log after Close.
	ErrClosed = errors.New("session log: logger closed")
	// ErrInvalidLevel: a log level that is neither compact nor full.
	ErrInvalidLevel = errors.New("session log: invalid level")
	// ErrPayloadReference: a payload reference is malformed, points outside the payload
	// directory, or does not match the content it names.
	ErrPayloadReference = errors.New("session log: bad payload reference")
	// ErrNoPayloadSource: a reference had to be resolved but no PayloadSource was given.
	ErrNoPayloadSource = errors.New("session log: payload reference without a payload source")
	// ErrReplay: a history_mutation event could not be applied.
	ErrReplay = errors.New("session log: replay failed")
)

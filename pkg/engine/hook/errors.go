package hook

import "errors"

// Sentinel errors. Non-blocking hook failures in a Result wrap one of these.
var (
	// ErrInvalidConfig reports a hooks configuration that does not parse or validate.
	ErrInvalidConfig = errors.New("invalid hooks configuration")
	// ErrUnknownEvent reports an event name that is not one of Events.
	ErrUnknownEvent = errors.New("unknown hook event")
	// ErrNoExecutor reports a hook whose type has no registered executor.
	ErrNoExecutor = errors.New("no executor for hook type")
	// ErrTimeout reports a hook killed because it ran past its timeout.
	ErrTimeout = errors.New("hook timed out")
	// ErrHookFailed reports a hook that ran but failed without blocking (exit code
	// other than 0 and 2, HTTP status other than 2xx).
	ErrHookFailed = errors.New("hook failed")
	// ErrInvalidOutput reports stdout that starts like JSON but is not valid hook output.
	ErrInvalidOutput = errors.New("invalid hook output")
)

package interactive

import (
	"errors"
	"fmt"

	"github.com/robota-sdk/robota-go/pkg/engine/checkpoint"
)

// Sentinel errors of InteractiveSession. Transports map them (the gRPC server:
// ErrQueueFull → RESOURCE_EXHAUSTED, ErrUnknownPermissionRequest → NOT_FOUND,
// ErrPermissionAnswered → FAILED_PRECONDITION, ErrInvalidApproval → INVALID_ARGUMENT).
var (
	// ErrQueueFull: Submit while a prompt runs and another is already queued (the queue
	// holds one prompt).
	ErrQueueFull = errors.New("a prompt is running and another is already queued; wait for one to finish or cancel the queue")
	// ErrEmptyPrompt: Submit with a prompt that is only white space.
	ErrEmptyPrompt = errors.New("the prompt is empty")
	// ErrSessionClosed: the session was closed (Submit, RespondPermission), or a
	// subscription has taken every event of the closed session.
	ErrSessionClosed = errors.New("the session is closed")
	// ErrUnknownPermissionRequest: RespondPermission names no request this session made.
	ErrUnknownPermissionRequest = errors.New("no such permission request")
	// ErrPermissionAnswered: RespondPermission on a request that was already answered,
	// timed out or was aborted.
	ErrPermissionAnswered = errors.New("the permission request was already resolved")
	// ErrInvalidApproval: an answer that is not allow, allow-session or deny.
	ErrInvalidApproval = errors.New("invalid permission answer: want allow, allow-session or deny")
	// ErrSubscriberTooSlow: the subscription was disconnected because it did not take its
	// events in time; the session went on.
	ErrSubscriberTooSlow = errors.New("subscriber too slow: disconnected")
	// ErrReplayUnavailable: SubscribeAfter asked for events the replay buffer no longer
	// keeps (or for a sequence number the session has not reached).
	ErrReplayUnavailable = errors.New("events to replay are not available")
	// ErrUnsubscribed: Next on a subscription after its Close.
	ErrUnsubscribed = errors.New("subscription closed")
	// ErrSessionNotReady: a subagent was asked for before its session was built (an
	// Agent call can only come from a running session, so this is a wiring error).
	ErrSessionNotReady = errors.New("the session is not ready")
	// ErrUnknownCheckpoint: a rewind names no checkpoint of this session.
	ErrUnknownCheckpoint error = &checkpoint.Unknown
)

// ErrInvalidConfiguration marks errors the user fixes in the settings or the options
// (hooks, permission rules, the working directory, --fork-session alone): robota -p
// exits 2 on them. Nothing invalid is ever skipped: a hook or rule that cannot be read
// stops the assembly instead of leaving the session without it.
var ErrInvalidConfiguration = errors.New("invalid configuration")

// ConfigError is an ErrInvalidConfiguration whose message is its own (it names the file
// and key) without the sentinel's text.
type ConfigError struct{ Err error }

func (e ConfigError) Error() string   { return e.Err.Error() }
func (e ConfigError) Unwrap() []error { return []error{ErrInvalidConfiguration, e.Err} }

// Invalid is an ErrInvalidConfiguration with the message format makes.
func Invalid(format string, args ...any) error { return ConfigError{fmt.Errorf(format, args...)} }

func invalid(format string, args ...any) error { return Invalid(format, args...) }

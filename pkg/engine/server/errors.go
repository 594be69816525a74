package server

import (
	"context"
	"errors"
	"fmt"
	"github.com/robota-sdk/robota-go/pkg/runner/jobgroups"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
	"github.com/robota-sdk/robota-go/pkg/runner/tasks"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/commands"
	"github.com/robota-sdk/robota-go/pkg/engine/manager"
)

// protoField names CreateSessionRequest's field for a manager.FieldError; "" for a
// field it does not list.
func protoField(field string) string {
	switch field {
	case "Cwd":
		return "cwd"
	case "Provider":
		return "provider"
	case "PermissionMode":
		return "permission_mode"
	case "Allow":
		return "allowed_tools"
	case "Deny":
		return "disallowed_tools"
	case "Script":
		return "script"
	case "Resume":
		return "resume_session_id"
	case "Fork":
		return "fork_session"
	}
	return ""
}

// codeOf maps the engine's sentinel errors to gRPC codes. It holds the errors'
// addresses: copying another package's variable would take a package init (issue 29).
var codeOf = []struct {
	err  *error
	code codes.Code
}{
	{&manager.ErrNotFound, codes.NotFound},
	{&interactive.ErrUnknownPermissionRequest, codes.NotFound},
	{&commands.ErrUnknownCommand, codes.NotFound},
	{&manager.ErrNotLive, codes.FailedPrecondition},
	{&manager.ErrShuttingDown, codes.Unavailable},
	{&manager.ErrTooManySessions, codes.ResourceExhausted},
	{&interactive.ErrQueueFull, codes.ResourceExhausted},
	{&interactive.ErrSubscriberTooSlow, codes.ResourceExhausted},
	{&interactive.ErrPermissionAnswered, codes.FailedPrecondition},
	{&interactive.ErrSessionClosed, codes.FailedPrecondition},
	{&interactive.ErrRunInProgress, codes.FailedPrecondition},
	{&interactive.ErrReplayUnavailable, codes.OutOfRange},
	{&interactive.ErrInvalidApproval, codes.InvalidArgument},
	{&interactive.ErrEmptyPrompt, codes.InvalidArgument},
	{&interactive.ErrInvalidConfiguration, codes.InvalidArgument},
	// Before ErrUnknownTask: a group request naming an unknown task is an invalid request.
	{&jobgroups.ErrInvalidRequest, codes.InvalidArgument},
	{&jobgroups.ErrUnknownGroup, codes.NotFound},
	{&interactive.ErrNoBackgroundTasks, codes.FailedPrecondition},
	{&tasks.ErrUnknownTask, codes.NotFound},
	{&runnerapi.ErrUnknownJob, codes.NotFound},
	{&tasks.ErrTaskActive, codes.FailedPrecondition},
	{&tasks.ErrTaskEnded, codes.FailedPrecondition},
	{&tasks.ErrNotRunning, codes.FailedPrecondition},
	{&runnerapi.ErrUnsupportedJob, codes.FailedPrecondition},
	{&tasks.ErrManagerClosed, codes.Unavailable},
	{&context.Canceled, codes.Canceled},
	{&context.DeadlineExceeded, codes.DeadlineExceeded},
}

// toStatus turns an engine error into a status error with the documented code.
func toStatus(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	var fe *manager.FieldError
	if errors.As(err, &fe) {
		name := protoField(fe.Field)
		if name == "" {
			name = fe.Field
		}
		return status.Errorf(codes.InvalidArgument, "%s: %v", name, fe.Err)
	}
	for _, c := range codeOf {
		if errors.Is(err, *c.err) {
			return status.Error(c.code, err.Error())
		}
	}
	return status.Error(codes.Internal, err.Error())
}

func invalidArg(field, format string, args ...any) error {
	return status.Errorf(codes.InvalidArgument, "%s: %s", field, fmt.Sprintf(format, args...))
}

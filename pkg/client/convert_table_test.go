package client

import (
	"errors"
	"testing"

	"google.golang.org/grpc/codes"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// TestConversionTables checks every name and enum the conversions map, both ways, and
// that anything else maps to the zero value.
func TestConversionTables(t *testing.T) {
	modes := map[string]robotav1.PermissionMode{
		"default": robotav1.PermissionMode_PERMISSION_MODE_DEFAULT, "acceptEdits": robotav1.PermissionMode_PERMISSION_MODE_ACCEPT_EDITS,
		"plan": robotav1.PermissionMode_PERMISSION_MODE_PLAN, "bypassPermissions": robotav1.PermissionMode_PERMISSION_MODE_BYPASS_PERMISSIONS,
		"dontAsk": robotav1.PermissionMode_PERMISSION_MODE_DONT_ASK,
	}
	for name, m := range modes {
		if got, err := modeToProto(name); err != nil || got != m {
			t.Errorf("modeToProto(%q) = %v, %v; want %v", name, got, err, m)
		}
		if got := modeFromProto(m); got != name {
			t.Errorf("modeFromProto(%v) = %q, want %q", m, got, name)
		}
	}
	if _, err := modeToProto("auto"); !errors.Is(err, ErrInvalidOption) {
		t.Errorf("modeToProto(auto): %v", err)
	}
	if got := modeFromProto(robotav1.PermissionMode_PERMISSION_MODE_UNSPECIFIED); got != "" {
		t.Errorf("modeFromProto(unspecified) = %q", got)
	}

	outcomes := map[robotav1.ToolOutcome]ToolOutcome{
		robotav1.ToolOutcome_TOOL_OUTCOME_SUCCESS: ToolSuccess, robotav1.ToolOutcome_TOOL_OUTCOME_ERROR: ToolError,
		robotav1.ToolOutcome_TOOL_OUTCOME_DENIED: ToolDenied, robotav1.ToolOutcome_TOOL_OUTCOME_INTERRUPTED: ToolInterrupted,
		robotav1.ToolOutcome_TOOL_OUTCOME_UNKNOWN_TOOL: ToolUnknown, robotav1.ToolOutcome_TOOL_OUTCOME_UNSPECIFIED: "",
	}
	for o, want := range outcomes {
		if got := outcomeFromProto(o); got != want {
			t.Errorf("outcomeFromProto(%v) = %q, want %q", o, got, want)
		}
	}

	answers := map[Answer]robotav1.PermissionAnswer{
		AnswerAllow: robotav1.PermissionAnswer_PERMISSION_ANSWER_ALLOW, AnswerAllowForSession: robotav1.PermissionAnswer_PERMISSION_ANSWER_ALLOW_FOR_SESSION,
		AnswerDeny: robotav1.PermissionAnswer_PERMISSION_ANSWER_DENY,
	}
	for a, p := range answers {
		if got, ok := answerToProto(a); !ok || got != p {
			t.Errorf("answerToProto(%d) = %v, %v; want %v", a, got, ok, p)
		}
		if got := answerFromProto(p); got != a {
			t.Errorf("answerFromProto(%v) = %d, want %d", p, got, a)
		}
	}
	if _, ok := answerToProto(0); ok {
		t.Error("answerToProto(0) is known")
	}
	if got := answerFromProto(robotav1.PermissionAnswer_PERMISSION_ANSWER_UNSPECIFIED); got != 0 {
		t.Errorf("answerFromProto(unspecified) = %d", got)
	}

	permOutcomes := map[robotav1.PermissionOutcome]string{
		robotav1.PermissionOutcome_PERMISSION_OUTCOME_ANSWERED: "answered", robotav1.PermissionOutcome_PERMISSION_OUTCOME_TIMEOUT: "timeout",
		robotav1.PermissionOutcome_PERMISSION_OUTCOME_ABORTED: "aborted", robotav1.PermissionOutcome_PERMISSION_OUTCOME_UNSPECIFIED: "",
	}
	for o, want := range permOutcomes {
		if got := permOutcomeFromProto(o); got != want {
			t.Errorf("permOutcomeFromProto(%v) = %q, want %q", o, got, want)
		}
	}

	roles := map[robotav1.Role]llm.Role{
		robotav1.Role_ROLE_USER: llm.RoleUser, robotav1.Role_ROLE_ASSISTANT: llm.RoleAssistant,
		robotav1.Role_ROLE_SYSTEM: llm.RoleSystem, robotav1.Role_ROLE_TOOL: llm.RoleTool, robotav1.Role_ROLE_UNSPECIFIED: "",
	}
	for r, want := range roles {
		if got := roleFromProto(r); got != want {
			t.Errorf("roleFromProto(%v) = %q, want %q", r, got, want)
		}
	}

	policies := map[string]robotav1.BackgroundJobWaitPolicy{
		"detached": robotav1.BackgroundJobWaitPolicy_BACKGROUND_JOB_WAIT_POLICY_DETACHED,
		"wait_all": robotav1.BackgroundJobWaitPolicy_BACKGROUND_JOB_WAIT_POLICY_WAIT_ALL,
		"wait_any": robotav1.BackgroundJobWaitPolicy_BACKGROUND_JOB_WAIT_POLICY_WAIT_ANY,
		"manual":   robotav1.BackgroundJobWaitPolicy_BACKGROUND_JOB_WAIT_POLICY_MANUAL,
	}
	for name, p := range policies {
		if got, ok := policyToProto(name); !ok || got != p {
			t.Errorf("policyToProto(%q) = %v, %v; want %v", name, got, ok, p)
		}
	}
	if _, ok := policyToProto("wait-all"); ok {
		t.Error("policyToProto(wait-all) is known: callers replace the dashes")
	}

	sentinels := map[codes.Code]error{
		codes.NotFound: ErrNotFound, codes.InvalidArgument: ErrInvalidArgument,
		codes.FailedPrecondition: ErrFailedPrecondition, codes.ResourceExhausted: ErrResourceExhausted,
		codes.Unavailable: ErrUnavailable, codes.OutOfRange: ErrOutOfRange, codes.Internal: nil,
	}
	for c, want := range sentinels {
		err := error(&RPCError{Op: "op", Code: c, Msg: "m"})
		for _, s := range []error{ErrNotFound, ErrInvalidArgument, ErrFailedPrecondition, ErrResourceExhausted, ErrUnavailable, ErrOutOfRange} {
			if got := errors.Is(err, s); got != (s == want) {
				t.Errorf("code %v: errors.Is(%v) = %v", c, s, got)
			}
		}
	}
}

package server

import (
	"errors"
	"testing"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/manager"
	"github.com/robota-sdk/robota-go/pkg/runner/jobgroups"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// The maps the conversions were before they became switches (issue 29): each switch
// must give what its map gave, in both directions.
var (
	oldTaskKinds = map[interactive.TaskKind]robotav1.BackgroundTaskKind{
		interactive.TaskAgent:   robotav1.BackgroundTaskKind_BACKGROUND_TASK_KIND_AGENT,
		interactive.TaskProcess: robotav1.BackgroundTaskKind_BACKGROUND_TASK_KIND_PROCESS,
	}
	oldTaskStatuses = map[interactive.TaskStatus]robotav1.BackgroundTaskStatus{
		interactive.TaskQueued:            robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_QUEUED,
		interactive.TaskRunning:           robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_RUNNING,
		interactive.TaskWaitingPermission: robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_WAITING_PERMISSION,
		interactive.TaskCompleted:         robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_COMPLETED,
		interactive.TaskFailed:            robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_FAILED,
		interactive.TaskCancelled:         robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_CANCELLED,
	}
	oldWaitPolicies = map[jobgroups.Policy]robotav1.BackgroundJobWaitPolicy{
		jobgroups.Detached: robotav1.BackgroundJobWaitPolicy_BACKGROUND_JOB_WAIT_POLICY_DETACHED,
		jobgroups.WaitAll:  robotav1.BackgroundJobWaitPolicy_BACKGROUND_JOB_WAIT_POLICY_WAIT_ALL,
		jobgroups.WaitAny:  robotav1.BackgroundJobWaitPolicy_BACKGROUND_JOB_WAIT_POLICY_WAIT_ANY,
		jobgroups.Manual:   robotav1.BackgroundJobWaitPolicy_BACKGROUND_JOB_WAIT_POLICY_MANUAL,
	}
	oldGroupStatuses = map[jobgroups.Status]robotav1.BackgroundJobGroupStatus{
		jobgroups.StatusRunning:   robotav1.BackgroundJobGroupStatus_BACKGROUND_JOB_GROUP_STATUS_RUNNING,
		jobgroups.StatusCompleted: robotav1.BackgroundJobGroupStatus_BACKGROUND_JOB_GROUP_STATUS_COMPLETED,
	}
	oldGroupEventTypes = map[jobgroups.EventType]robotav1.BackgroundJobGroupEventType{
		jobgroups.EventCreated:   robotav1.BackgroundJobGroupEventType_BACKGROUND_JOB_GROUP_EVENT_TYPE_CREATED,
		jobgroups.EventUpdated:   robotav1.BackgroundJobGroupEventType_BACKGROUND_JOB_GROUP_EVENT_TYPE_UPDATED,
		jobgroups.EventCompleted: robotav1.BackgroundJobGroupEventType_BACKGROUND_JOB_GROUP_EVENT_TYPE_COMPLETED,
	}
	oldModeToProto = map[string]robotav1.PermissionMode{
		"default": robotav1.PermissionMode_PERMISSION_MODE_DEFAULT, "acceptEdits": robotav1.PermissionMode_PERMISSION_MODE_ACCEPT_EDITS,
		"plan": robotav1.PermissionMode_PERMISSION_MODE_PLAN, "bypassPermissions": robotav1.PermissionMode_PERMISSION_MODE_BYPASS_PERMISSIONS,
		"dontAsk": robotav1.PermissionMode_PERMISSION_MODE_DONT_ASK,
	}
	oldRoleToProto = map[llm.Role]robotav1.Role{
		llm.RoleUser: robotav1.Role_ROLE_USER, llm.RoleAssistant: robotav1.Role_ROLE_ASSISTANT,
		llm.RoleSystem: robotav1.Role_ROLE_SYSTEM, llm.RoleTool: robotav1.Role_ROLE_TOOL,
	}
	oldProtoField = map[string]string{
		"Cwd": "cwd", "Provider": "provider", "PermissionMode": "permission_mode", "Allow": "allowed_tools",
		"Deny": "disallowed_tools", "Script": "script", "Resume": "resume_session_id", "Fork": "fork_session",
	}
)

// checkForward asserts that to gives what old gave for each of its keys and the zero
// value (as a missing map key did) for unknown.
func checkForward[K comparable, V comparable](t *testing.T, name string, old map[K]V, to func(K) V, unknown K) {
	t.Helper()
	for k, v := range old {
		if got := to(k); got != v {
			t.Errorf("%s(%v) = %v, want %v", name, k, got, v)
		}
	}
	var zero V
	if got := to(unknown); got != zero {
		t.Errorf("%s(%v) = %v, want the zero value", name, unknown, got)
	}
}

// reverse is what the reverse conversions did: look for the value among the map's.
func reverse[K comparable, V comparable](old map[K]V, v V) (K, bool) {
	for k, w := range old {
		if w == v {
			return k, true
		}
	}
	var zero K
	return zero, false
}

func TestEnumConversionsMatchTheOldTables(t *testing.T) {
	checkForward(t, "taskKindToProto", oldTaskKinds, taskKindToProto, "nope")
	checkForward(t, "taskStatusToProto", oldTaskStatuses, taskStatusToProto, "nope")
	checkForward(t, "waitPolicyToProto", oldWaitPolicies, waitPolicyToProto, "nope")
	checkForward(t, "groupStatusToProto", oldGroupStatuses, groupStatusToProto, "nope")
	checkForward(t, "groupEventTypeToProto", oldGroupEventTypes, groupEventTypeToProto, "nope")
	checkForward(t, "modeToProto", oldModeToProto, modeToProto, "nope")
	checkForward(t, "roleToProto", oldRoleToProto, roleToProto, "nope")
	if got := modeToProto(""); got != robotav1.PermissionMode_PERMISSION_MODE_UNSPECIFIED {
		t.Errorf("modeToProto(\"\") = %v", got)
	}

	// Every value of each proto enum, and one past them.
	for n := range int32(len(robotav1.BackgroundTaskStatus_name) + 1) {
		s := robotav1.BackgroundTaskStatus(n)
		wantK, wantOK := reverse(oldTaskStatuses, s)
		if k, ok := statusFromProto(s); k != wantK || ok != wantOK {
			t.Errorf("statusFromProto(%v) = %q, %v; want %q, %v", s, k, ok, wantK, wantOK)
		}
	}
	for n := range int32(len(robotav1.BackgroundJobWaitPolicy_name) + 1) {
		p := robotav1.BackgroundJobWaitPolicy(n)
		wantK, wantOK := reverse(oldWaitPolicies, p)
		if p == robotav1.BackgroundJobWaitPolicy_BACKGROUND_JOB_WAIT_POLICY_UNSPECIFIED {
			wantK, wantOK = jobgroups.WaitAll, true
		}
		if k, ok := policyFromProto(p); k != wantK || ok != wantOK {
			t.Errorf("policyFromProto(%v) = %q, %v; want %q, %v", p, k, ok, wantK, wantOK)
		}
	}
	for n := range int32(len(robotav1.PermissionMode_name) + 1) {
		m := robotav1.PermissionMode(n)
		wantK, wantOK := reverse(oldModeToProto, m)
		k, err := modeFromProto(m)
		switch {
		case m == robotav1.PermissionMode_PERMISSION_MODE_UNSPECIFIED:
			if k != "" || err != nil {
				t.Errorf("modeFromProto(UNSPECIFIED) = %q, %v", k, err)
			}
		case wantOK:
			if k != wantK || err != nil {
				t.Errorf("modeFromProto(%v) = %q, %v; want %q", m, k, err, wantK)
			}
		default:
			if k != "" || status.Code(err) != codes.InvalidArgument {
				t.Errorf("modeFromProto(%v) = %q, %v; want INVALID_ARGUMENT", m, k, err)
			}
		}
	}
}

func TestFieldErrorsNameTheProtoField(t *testing.T) {
	for field, want := range oldProtoField {
		err := toStatus(&manager.FieldError{Field: field, Err: errors.New("bad")})
		if msg := status.Convert(err).Message(); msg != want+": bad" || status.Code(err) != codes.InvalidArgument {
			t.Errorf("field %s: %v, message %q; want INVALID_ARGUMENT %q", field, status.Code(err), msg, want+": bad")
		}
	}
	err := toStatus(&manager.FieldError{Field: "Other", Err: errors.New("bad")})
	if msg := status.Convert(err).Message(); msg != "Other: bad" {
		t.Errorf("an unlisted field: message %q, want %q", msg, "Other: bad")
	}
}

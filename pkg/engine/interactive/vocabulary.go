package interactive

import (
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
)

// The session core's words that front ends (pkg/cli, pkg/tui, pkg/engine/server) name.
// They are the lower session package's own types and values, given here so that a front
// end imports the session core and its events only and never reaches under it: what a
// front end may rely on is what this package says.

// Approval is an answer to a permission question (RespondPermission).
type Approval = session.Approval

// The answers RespondPermission takes.
const (
	ApprovalAllow        = session.ApprovalAllow
	ApprovalAllowSession = session.ApprovalAllowSession
	ApprovalDeny         = session.ApprovalDeny
)

// PermissionMode is a session's permission mode (default, acceptEdits, plan, ...).
type PermissionMode = session.PermissionMode

// PermissionDenial is a call the permission pipeline refused during a run.
type PermissionDenial = session.PermissionDenial

// HistoryEntry is one entry of a session's timeline; CompactEvent a compaction's record.
type (
	HistoryEntry = session.HistoryEntry
	CompactEvent = session.CompactEvent
)

// CategoryChat is the category of the timeline's conversation entries.
const CategoryChat = session.CategoryChat

// ChatEntryToMessage is the conversation message a chat entry holds.
func ChatEntryToMessage(e HistoryEntry) (llm.Message, error) { return session.ChatEntryToMessage(e) }

// The session's errors a front end tells apart (errors.Is matches them).
var (
	// ErrAborted: the run was aborted (Abort, or its context ended).
	ErrAborted error = &session.Aborted
	// ErrRunInProgress: the session already runs a prompt.
	ErrRunInProgress error = &session.RunInProgress
)

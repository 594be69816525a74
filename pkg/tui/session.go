package tui

import (
	"context"
	"errors"
	"time"
)

// Session is what the UI needs of a session, wherever it runs: NewInProcess adapts an
// in-process InteractiveSession, NewRemote one in an engine.
type Session interface {
	Info() Info
	// Events delivers the session's events in order; closed when the session ends.
	Events() <-chan Event
	// Submit runs a prompt (the UI keeps its own queue, so one at a time).
	Submit(prompt string) (promptID string, err error)
	// Abort interrupts the running prompt; its end event follows.
	Abort() error
	Respond(requestID string, a Answer, message string) error
	SetPermissionMode(mode string) error
	Commands() []Command
	Execute(ctx context.Context, name, args string) (CommandResult, error)
	// Context is the context window's use now.
	Context() ContextState
	// Close saves and ends the session.
	Close(ctx context.Context) error
}

// ErrUnknownCommand is Execute's error for a name no command has.
var ErrUnknownCommand = errors.New("unknown command")

// Info describes the session at the start.
type Info struct {
	ID, Model, Cwd, PermissionMode string
	// Previous is the end of a resumed conversation (user prompts and answers), shown
	// at the start; empty for a new session.
	Previous []Turn
}

// Turn is one message of a resumed conversation.
type Turn struct {
	User bool
	Text string
}

// previousTurns keeps the last previousKeep turns.
const previousKeep = 10

// Answer is a permission prompt's choice.
type Answer int

const (
	AllowOnce Answer = iota + 1
	AllowSession
	Deny
)

// Command is a slash command the completion list offers.
type Command struct {
	Name, Description, ArgumentHint, Source string
	// Subcommands are the choices of the first argument, completed after "/name ".
	Subcommands []string
}

// CommandResult is what a command returned. Prompt is set for a command that expands
// into a prompt for the model (a skill or custom command).
type CommandResult struct {
	Message string
	Success bool
	Prompt  string
	// Data is the command's structured result (the /resume picker reads its sessions).
	Data map[string]any
}

// ContextState is the context window's use.
type ContextState struct {
	UsedTokens, MaxTokens int
	UsedPercent           float64
}

// EventKind says what an Event carries.
type EventKind int

const (
	EvText EventKind = iota + 1
	EvThinking
	EvToolStart
	EvToolEnd
	EvPermission
	EvPermissionResolved
	EvContext
	EvEnd
	EvTask
	EvCompaction
	// EvReady says a Deferred session is made (Info) or could not be (Text: why).
	EvReady
)

// Event is one thing that happened in the session, as the UI shows it.
type Event struct {
	Kind     EventKind
	PromptID string
	Text     string
	Tool     *Tool
	Perm     *Permission
	// ResolvedID is the permission request an EvPermissionResolved closes.
	ResolvedID string
	End        *End
	Context    *ContextState
	Task       *Task
	// Info of EvReady.
	Info *Info
}

// Tool is one tool call.
type Tool struct {
	ID, Name, FirstArg string
	Args               []byte
	// Result is "success", "error" or "denied" at the end.
	Result, Reason, ErrorCode string
	Preview                   string
	DiffFile                  string
	Diff                      []DiffLine
	// Message is a hook's systemMessage for the user.
	Message string
}

// DiffLine is one changed line of an edit.
type DiffLine struct {
	// Kind is "hunk", "context", "remove" or "add".
	Kind string
	Line int
	Text string
}

// Permission is a tool call waiting for the user's answer.
type Permission struct {
	ID, ToolName, Reason, SessionRule string
	Input                             []byte
	// Subagent names the subagent asking; empty for the session's own calls.
	Subagent string
}

// End ends a prompt.
type End struct {
	// Outcome is "complete", "error" or "interrupted".
	Outcome, Error, Reason    string
	InputTokens, OutputTokens int
}

// Task is a background task's (subagent's or command's) state.
type Task struct {
	ID, Kind, Status, Label, Action string
	Terminal                        bool
	Started                         time.Time
}

package workerplugin

import "github.com/robota-sdk/robota-go/pkg/runner/runnerapi"

// The contract's types are defined in pkg/runner/runnerapi, which links no gRPC; these
// aliases keep this package's names for the go-plugin side.
type (
	// Runner runs jobs (runnerapi.Runner).
	Runner = runnerapi.Runner
	// Job is one unit of work (runnerapi.Job).
	Job = runnerapi.Job
	// AgentJob is a subagent session (runnerapi.AgentJob).
	AgentJob = runnerapi.AgentJob
	// ProcessJob is a shell command (runnerapi.ProcessJob).
	ProcessJob = runnerapi.ProcessJob
	// EventKind says which fields of an Event are meaningful.
	EventKind = runnerapi.EventKind
	// Event is one event of a job.
	Event = runnerapi.Event
	// ToolProgress is a tool call inside an agent job.
	ToolProgress = runnerapi.ToolProgress
	// LogPage is one page of a job's output log.
	LogPage = runnerapi.LogPage
)

// Event kinds (runnerapi). Completed, Failed and Cancelled are terminal.
const (
	EventStarted   = runnerapi.EventStarted
	EventTextDelta = runnerapi.EventTextDelta
	EventToolStart = runnerapi.EventToolStart
	EventToolEnd   = runnerapi.EventToolEnd
	EventCompleted = runnerapi.EventCompleted
	EventFailed    = runnerapi.EventFailed
	EventCancelled = runnerapi.EventCancelled
)

// Sentinel errors (runnerapi).
var (
	// ErrUnsupportedJob crosses the wire as codes.Unimplemented.
	ErrUnsupportedJob = runnerapi.ErrUnsupportedJob
	// ErrUnknownJob crosses the wire as codes.NotFound.
	ErrUnknownJob = runnerapi.ErrUnknownJob
)

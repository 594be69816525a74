// Package jobgroups groups a session's background tasks and applies a wait policy to
// each group (the spec's BackgroundJobOrchestrator, IBackgroundJobGroupState and
// TBackgroundJobWaitPolicy). It sits above the task manager: it runs nothing, it
// watches the manager's events (Observe) and keeps, per group, one result envelope per
// task that ended.
//
// Wait policies:
//   - wait_all: the group completes when every task has ended.
//   - wait_any: the group completes when the first task ends; the others run on and
//     their results are still added (an updated event each).
//   - detached: the creator does not wait (/agent parallel --detach); the group
//     completes as wait_all does, so a later wait (/agent wait GROUP_ID) returns
//     every result.
//   - manual: the policy never completes the group; it stays running and collects
//     results. Waiting on it returns once every task has ended (nothing more can
//     change), its status still running. The spec's orchestrator never resolves such a
//     wait; a wait that cannot end is no use to a command or an RPC.
//
// A group restored from a session record (Config.Restored) whose tasks ran in an
// earlier run cannot gain results any more: waiting on it returns its snapshot at once.
//
// Events (Config.OnEvent) are emitted in order, created, then updated per new result,
// then completed; a completed event is emitted before Wait returns, so a subscriber of
// the session sees it before the command that waited answers.
package jobgroups

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/robota-sdk/robota-go/pkg/runner/tasks"
)

// Policy is a group's completion policy (the spec's TBackgroundJobWaitPolicy).
type Policy string

// The wait policies.
const (
	Detached Policy = "detached"
	WaitAll  Policy = "wait_all"
	WaitAny  Policy = "wait_any"
	Manual   Policy = "manual"
)

// Policies are the wait policies, in the spec's order.
var Policies = []Policy{Detached, WaitAll, WaitAny, Manual}

// ParsePolicy reads a policy name; "" is wait_all.
func ParsePolicy(s string) (Policy, error) {
	if s == "" {
		return WaitAll, nil
	}
	p := Policy(strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), "-", "_"))
	if !slices.Contains(Policies, p) {
		return "", fmt.Errorf("%w: wait policy %q (want detached, wait_all, wait_any or manual)", ErrInvalidRequest, s)
	}
	return p, nil
}

// Status is a group's status.
type Status string

// Group statuses.
const (
	StatusRunning   Status = "running"
	StatusCompleted Status = "completed"
)

// Result is the envelope of one task of a group that ended (the spec's
// IBackgroundJobResultEnvelope).
type Result struct {
	TaskID string      `json:"taskId"`
	Label  string      `json:"label"`
	Status tasks.State `json:"status"`
	// Summary is the head of the task's output; OutputRef where the whole of it is (a
	// subagent's transcript).
	Summary     string     `json:"summary,omitempty"`
	OutputRef   string     `json:"outputRef,omitempty"`
	Error       string     `json:"error,omitempty"`
	StartedAt   *time.Time `json:"startedAt,omitempty"`
	CompletedAt *time.Time `json:"completedAt,omitempty"`
}

// Group is a snapshot of one group (the spec's IBackgroundJobGroupState). Results are
// in the order the tasks ended.
type Group struct {
	ID              string     `json:"id"`
	ParentSessionID string     `json:"parentSessionId"`
	WaitPolicy      Policy     `json:"waitPolicy"`
	TaskIDs         []string   `json:"taskIds"`
	Status          Status     `json:"status"`
	CreatedAt       time.Time  `json:"createdAt"`
	UpdatedAt       time.Time  `json:"updatedAt"`
	Label           string     `json:"label,omitempty"`
	CompletedAt     *time.Time `json:"completedAt,omitempty"`
	Results         []Result   `json:"results"`
}

func (g Group) clone() Group {
	g.TaskIDs = slices.Clone(g.TaskIDs)
	g.Results = slices.Clone(g.Results)
	if g.Results == nil {
		g.Results = []Result{}
	}
	if g.CompletedAt != nil {
		t := *g.CompletedAt
		g.CompletedAt = &t
	}
	return g
}

// result returns the envelope of task id, if it ended.
func (g Group) result(id string) (Result, bool) {
	i := slices.IndexFunc(g.Results, func(r Result) bool { return r.TaskID == id })
	if i < 0 {
		return Result{}, false
	}
	return g.Results[i], true
}

// Pending are the group's tasks that have not ended, in the group's order.
func (g Group) Pending() []string {
	var out []string
	for _, id := range g.TaskIDs {
		if _, ok := g.result(id); !ok {
			out = append(out, id)
		}
	}
	return out
}

// EventType names a group event (the spec's TBackgroundJobGroupEvent union).
type EventType string

// Group event types.
const (
	EventCreated   EventType = "background_job_group_created"
	EventUpdated   EventType = "background_job_group_updated"
	EventCompleted EventType = "background_job_group_completed"
)

// Event is a group's lifecycle change, with its snapshot after it.
type Event struct {
	Type  EventType `json:"type"`
	Group Group     `json:"group"`
}

// Errors of the orchestrator; returned errors wrap them.
var (
	// ErrUnknownGroup: no group with that id.
	ErrUnknownGroup = errors.New("unknown background job group")
	// ErrInvalidRequest: no tasks, a task named twice or unknown, an unknown policy.
	ErrInvalidRequest = errors.New("invalid background job group request")
)

// TaskSource is what the orchestrator reads of the task manager
// (*tasks.BackgroundTaskManager).
type TaskSource interface {
	Get(id string) (tasks.Task, error)
}

// Config configures an Orchestrator.
type Config struct {
	// Tasks are the session's tasks. Required.
	Tasks TaskSource
	// Now stamps the groups (nil: time.Now).
	Now func() time.Time
	// NewID names a new group (nil: group_1, group_2 ..., numbered after the restored
	// groups' highest).
	NewID func() string
	// Restored are the groups of the session's record (a resumed session).
	Restored []Group
	// OnEvent receives every group event, in order, outside the orchestrator's lock.
	// It must not call the orchestrator.
	OnEvent func(Event)
	// OutputRef names where a task's whole output is (a subagent's transcript); nil
	// or "": none.
	OutputRef func(tasks.Task) string
}

// CreateRequest asks for a group over existing tasks (the spec's
// IBackgroundJobGroupCreateRequest).
type CreateRequest struct {
	ParentSessionID string
	WaitPolicy      Policy
	TaskIDs         []string
	Label           string
	// ID, when set, is the group's id: one NewID handed out before the tasks started,
	// so that they carry it (the model's Agent batch). Empty: a new one.
	ID string
}

type record struct {
	g Group
	// done closes when the group completes; settled when every task has a result (or
	// none ever will: a restored group).
	done, settled chan struct{}
}

// Orchestrator keeps a session's groups.
type Orchestrator struct {
	cfg Config
	// emitMu orders the events: a change and its event are one step.
	emitMu sync.Mutex
	mu     sync.Mutex
	groups map[string]*record
	order  []string
	seq    int
}

// maxSummary bounds a result's summary (characters), as the spec's orchestrator does.
const maxSummary = 1000

// New returns an orchestrator holding cfg.Restored.
func New(cfg Config) *Orchestrator {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	o := &Orchestrator{cfg: cfg, groups: map[string]*record{}}
	for _, g := range cfg.Restored {
		if g.ID == "" || o.groups[g.ID] != nil {
			continue
		}
		r := &record{g: g.clone(), done: make(chan struct{}), settled: make(chan struct{})}
		// Its tasks ran in an earlier run: no result will come any more.
		close(r.settled)
		if g.Status == StatusCompleted {
			close(r.done)
		}
		o.groups[g.ID] = r
		o.order = append(o.order, g.ID)
		if n, ok := strings.CutPrefix(g.ID, "group_"); ok {
			if v, err := strconv.Atoi(n); err == nil && v > o.seq {
				o.seq = v
			}
		}
	}
	return o
}

func (o *Orchestrator) newID() string {
	if o.cfg.NewID != nil {
		return o.cfg.NewID()
	}
	o.seq++
	return fmt.Sprintf("group_%d", o.seq)
}

// NewID hands out a group id no group has or will be given, for a group whose tasks
// must name it before it is created (CreateRequest.ID).
func (o *Orchestrator) NewID() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.newID()
}

// Create makes a group over existing tasks; tasks that already ended are its first
// results. It emits created, then completed when the policy is already met.
func (o *Orchestrator) Create(req CreateRequest) (Group, error) {
	policy, err := ParsePolicy(string(req.WaitPolicy))
	if err != nil {
		return Group{}, err
	}
	if len(req.TaskIDs) == 0 {
		return Group{}, fmt.Errorf("%w: no tasks", ErrInvalidRequest)
	}
	snaps := make([]tasks.Task, len(req.TaskIDs))
	for i, id := range req.TaskIDs {
		if slices.Contains(req.TaskIDs[:i], id) {
			return Group{}, fmt.Errorf("%w: task %s named twice", ErrInvalidRequest, id)
		}
		t, err := o.cfg.Tasks.Get(id)
		if err != nil {
			return Group{}, fmt.Errorf("%w: %w", ErrInvalidRequest, err)
		}
		snaps[i] = t
	}
	o.emitMu.Lock()
	defer o.emitMu.Unlock()
	now := o.cfg.Now()
	o.mu.Lock()
	id := req.ID
	if id == "" {
		id = o.newID()
	}
	if o.groups[id] != nil {
		o.mu.Unlock()
		return Group{}, fmt.Errorf("%w: group id %s is taken", ErrInvalidRequest, id)
	}
	r := &record{g: Group{ID: id, ParentSessionID: req.ParentSessionID, WaitPolicy: policy, TaskIDs: slices.Clone(req.TaskIDs),
		Status: StatusRunning, CreatedAt: now, UpdatedAt: now, Label: req.Label, Results: []Result{}},
		done: make(chan struct{}), settled: make(chan struct{})}
	o.groups[id] = r
	o.order = append(o.order, id)
	for _, t := range snaps {
		if t.State.Terminal() {
			r.g.Results = append(r.g.Results, o.envelope(t))
		}
	}
	created := r.g.clone()
	o.mu.Unlock()
	o.emit(Event{Type: EventCreated, Group: created})
	o.settle(r, now, false)
	return created, nil
}

// Observe feeds the orchestrator one event of the task manager. The session's event
// pump calls it for every event; only those whose snapshot is terminal matter.
func (o *Orchestrator) Observe(ev tasks.Event) {
	if ev.Task == nil || !ev.Task.State.Terminal() {
		return
	}
	o.emitMu.Lock()
	defer o.emitMu.Unlock()
	now := o.cfg.Now()
	o.mu.Lock()
	var touched []*record
	for _, id := range o.order {
		r := o.groups[id]
		if !slices.Contains(r.g.TaskIDs, ev.TaskID) {
			continue
		}
		if _, ok := r.g.result(ev.TaskID); ok {
			continue
		}
		r.g.Results = append(r.g.Results, o.envelope(*ev.Task))
		r.g.UpdatedAt = now
		touched = append(touched, r)
	}
	o.mu.Unlock()
	for _, r := range touched {
		o.settle(r, now, true)
	}
}

// settle completes r when its policy is met and emits what changed: completed, or
// updated when changed (a new result); it closes settled once every task has a
// result. emitMu is held.
func (o *Orchestrator) settle(r *record, now time.Time, changed bool) {
	o.mu.Lock()
	all := len(r.g.Pending()) == 0
	complete := false
	if r.g.Status == StatusRunning {
		switch r.g.WaitPolicy {
		case WaitAny:
			complete = len(r.g.Results) > 0
		case WaitAll, Detached:
			complete = all
		}
	}
	if complete {
		r.g.Status, r.g.CompletedAt, r.g.UpdatedAt = StatusCompleted, &now, now
	}
	snap := r.g.clone()
	o.mu.Unlock()
	switch {
	case complete:
		o.emit(Event{Type: EventCompleted, Group: snap})
		// After the event: a waiter that returns has the session's subscribers hold it.
		close(r.done)
	case changed:
		o.emit(Event{Type: EventUpdated, Group: snap})
	}
	if all {
		select {
		case <-r.settled:
		default:
			close(r.settled)
		}
	}
}

func (o *Orchestrator) emit(ev Event) {
	if o.cfg.OnEvent != nil {
		o.cfg.OnEvent(ev)
	}
}

// envelope is the result of a task that ended.
func (o *Orchestrator) envelope(t tasks.Task) Result {
	r := Result{TaskID: t.ID, Label: Label(t), Status: t.State, Error: t.Error, StartedAt: t.StartedAt, CompletedAt: t.EndedAt}
	if t.State == tasks.StateCancelled && r.Error == "" {
		r.Error = t.CancelReason
	}
	if s := strings.TrimSpace(t.Result); s != "" {
		if rs := []rune(s); len(rs) > maxSummary {
			s = string(rs[:maxSummary]) + "..."
		}
		r.Summary = s
	}
	if o.cfg.OutputRef != nil {
		r.OutputRef = o.cfg.OutputRef(t)
	}
	return r
}

// Label is how a group names a task: its description, else its agent type or command.
func Label(t tasks.Task) string {
	switch {
	case t.Description != "":
		return t.Description
	case t.AgentType != "":
		return t.AgentType
	}
	return t.Command
}

// List returns snapshots of the groups, oldest first.
func (o *Orchestrator) List() []Group {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]Group, 0, len(o.order))
	for _, id := range o.order {
		out = append(out, o.groups[id].g.clone())
	}
	return out
}

// Get returns a snapshot of one group.
func (o *Orchestrator) Get(id string) (Group, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	r := o.groups[id]
	if r == nil {
		return Group{}, fmt.Errorf("%w: %s", ErrUnknownGroup, id)
	}
	return r.g.clone(), nil
}

// Wait returns the group once its policy completed it (a manual group: once every task
// ended), or ctx's error. A restored group, whose tasks cannot end any more, returns at
// once.
func (o *Orchestrator) Wait(ctx context.Context, id string) (Group, error) {
	o.mu.Lock()
	r := o.groups[id]
	o.mu.Unlock()
	if r == nil {
		return Group{}, fmt.Errorf("%w: %s", ErrUnknownGroup, id)
	}
	select {
	case <-r.done:
	case <-r.settled:
	case <-ctx.Done():
		return Group{}, ctx.Err()
	}
	return o.Get(id)
}

// Summary is a group's counts and one line per task (the spec's
// IBackgroundJobGroupSummary), for commands and clients to print.
type Summary struct {
	GroupID   string   `json:"groupId"`
	Label     string   `json:"label,omitempty"`
	Policy    Policy   `json:"waitPolicy"`
	Status    Status   `json:"status"`
	Total     int      `json:"total"`
	Completed int      `json:"completed"`
	Failed    int      `json:"failed"`
	Cancelled int      `json:"cancelled"`
	Pending   int      `json:"pending"`
	Lines     []string `json:"lines"`
}

// Summarize counts g's results and renders a line per task, in the group's order.
func Summarize(g Group) Summary {
	s := Summary{GroupID: g.ID, Label: g.Label, Policy: g.WaitPolicy, Status: g.Status, Total: len(g.TaskIDs), Lines: []string{}}
	for _, id := range g.TaskIDs {
		r, ok := g.result(id)
		if !ok {
			s.Pending++
			s.Lines = append(s.Lines, fmt.Sprintf("- %s: running", id))
			continue
		}
		switch r.Status {
		case tasks.StateCompleted:
			s.Completed++
		case tasks.StateFailed:
			s.Failed++
		case tasks.StateCancelled:
			s.Cancelled++
		}
		line := fmt.Sprintf("- %s (%s): %s", r.Label, r.TaskID, r.Status)
		if r.Summary != "" {
			line += " - " + oneLine(r.Summary)
		} else if r.Error != "" {
			line += " - " + oneLine(r.Error)
		}
		s.Lines = append(s.Lines, line)
	}
	return s
}

// String is the summary as a command prints it: a header and its lines.
func (s Summary) String() string {
	head := fmt.Sprintf("Background job group %s (%s): %s (%d/%d completed, %d failed, %d cancelled, %d pending)",
		s.GroupID, s.Policy, s.Status, s.Completed, s.Total, s.Failed, s.Cancelled, s.Pending)
	return strings.Join(append([]string{head}, s.Lines...), "\n")
}

// oneLine keeps a summary on its line: its first line, marked when there is more.
func oneLine(s string) string {
	if first, _, more := strings.Cut(s, "\n"); more {
		return first + " …"
	}
	return s
}

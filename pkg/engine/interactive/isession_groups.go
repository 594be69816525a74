package interactive

import (
	"context"
	"errors"
	"fmt"

	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
	"github.com/robota-sdk/robota-go/pkg/runner/jobgroups"
	"github.com/robota-sdk/robota-go/pkg/runner/tasks"
)

// JobGroup is a background job group's snapshot (the spec's IBackgroundJobGroupState).
type JobGroup = jobgroups.Group

// JobGroupEvent is a group's lifecycle change (EventBackgroundJobGroup; the spec's
// TBackgroundJobGroupEvent).
type JobGroupEvent = jobgroups.Event

// JobGroupRequest asks for a group over existing tasks; the session fills in its id as
// the parent.
type JobGroupRequest struct {
	WaitPolicy jobgroups.Policy
	TaskIDs    []string
	Label      string
}

// ErrNoBackgroundTasks: the session runs no background tasks (it has no runner), so it
// has no groups either.
var ErrNoBackgroundTasks = errors.New("this session runs no background tasks (no worker runner)")

// EntryBackgroundJobGroup is the timeline entry of a group's creation and completion
// (its JobGroupEvent).
const EntryBackgroundJobGroup = "background-job-group"

func (s *InteractiveSession) jobGroups() (*jobgroups.Orchestrator, error) {
	if s.host == nil || s.host.JobGroups == nil || s.host.JobGroups() == nil {
		return nil, ErrNoBackgroundTasks
	}
	return s.host.JobGroups(), nil
}

// CreateBackgroundJobGroup groups existing tasks under a wait policy (the spec's
// createBackgroundJobGroup). Unknown or repeated task ids and an unknown policy are
// refused (jobgroups.ErrInvalidRequest).
func (s *InteractiveSession) CreateBackgroundJobGroup(req JobGroupRequest) (JobGroup, error) {
	o, err := s.jobGroups()
	if err != nil {
		return JobGroup{}, err
	}
	return o.Create(jobgroups.CreateRequest{ParentSessionID: s.ID(), WaitPolicy: req.WaitPolicy, TaskIDs: req.TaskIDs, Label: req.Label})
}

// ListBackgroundJobGroups returns the session's groups, a resumed session's earlier
// ones first.
func (s *InteractiveSession) ListBackgroundJobGroups() []JobGroup {
	o, err := s.jobGroups()
	if err != nil {
		return []JobGroup{}
	}
	return o.List()
}

// GetBackgroundJobGroup returns one group (jobgroups.ErrUnknownGroup for an unknown id).
func (s *InteractiveSession) GetBackgroundJobGroup(id string) (JobGroup, error) {
	o, err := s.jobGroups()
	if err != nil {
		return JobGroup{}, err
	}
	return o.Get(id)
}

// WaitBackgroundJobGroup returns the group once its wait policy completed it (see
// package jobgroups for manual and restored groups), or ctx's error.
func (s *InteractiveSession) WaitBackgroundJobGroup(ctx context.Context, id string) (JobGroup, error) {
	o, err := s.jobGroups()
	if err != nil {
		return JobGroup{}, err
	}
	return o.Wait(ctx, id)
}

// SummarizeBackgroundJobGroup counts a group's results and renders a line per task.
func SummarizeBackgroundJobGroup(g JobGroup) jobgroups.Summary { return jobgroups.Summarize(g) }

// recordGroup keeps a group event beyond the session's life: in the session log (which
// replay collects) and, for a creation or a completion, in the timeline. The record
// gets the snapshots and events when it is saved (recordGroups).
func (s *InteractiveSession) recordGroup(ev *JobGroupEvent) {
	if s.host != nil && s.host.Log != nil {
		s.host.Log(string(sessionlog.EventBackgroundJobGroup), ev)
	}
	if ev.Type != jobgroups.EventUpdated {
		s.addEntry(EntryBackgroundJobGroup, ev)
	}
}

// backgroundTasks is the session's task manager, or ErrNoBackgroundTasks.
func (s *InteractiveSession) backgroundTasks() (*tasks.BackgroundTaskManager, error) {
	if s.Tasks() == nil {
		return nil, ErrNoBackgroundTasks
	}
	return s.Tasks(), nil
}

// groupError words a group error for a command's message.
func groupError(err error) string {
	if errors.Is(err, jobgroups.ErrUnknownGroup) {
		return fmt.Sprintf("%v (list them with /background groups)", err)
	}
	return err.Error()
}

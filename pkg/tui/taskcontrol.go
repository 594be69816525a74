package tui

import (
	"context"
	"errors"

	"github.com/robota-sdk/robota-go/pkg/runner/tasks"
)

// errNoTasks is the task view's error in a session without workers.
var errNoTasks = errors.New("this session runs no background tasks (no workers)")

// tasks is the in-process session's task manager (nil without workers).
func (p *InProcess) tasks() *tasks.BackgroundTaskManager {
	return p.s.Tasks()
}

// logPage is a page of a task's output, as both adapters read it.
type logPage struct {
	data []byte
	next int64
	eof  bool
}

// outputTail reads a task's output to its end, one page per read, and returns its last
// max bytes.
func outputTail(ctx context.Context, max int, read func(ctx context.Context, offset int64) (logPage, error)) (string, error) {
	var tail []byte
	var off int64
	for {
		page, err := read(ctx, off)
		if err != nil {
			return "", err
		}
		tail = append(tail, page.data...)
		if len(tail) > max {
			tail = tail[len(tail)-max:]
		}
		if page.eof || page.next <= off {
			return string(tail), nil
		}
		off = page.next
	}
}

// taskLogPage is how much output one read asks for.
const taskLogPage = 64 << 10

func (p *InProcess) TaskOutput(ctx context.Context, id string, max int) (string, error) {
	m := p.tasks()
	if m == nil {
		return "", errNoTasks
	}
	return outputTail(ctx, max, func(ctx context.Context, off int64) (logPage, error) {
		page, err := m.ReadLog(ctx, id, off, taskLogPage)
		return logPage{data: page.Data, next: page.NextOffset, eof: page.EOF}, err
	})
}

func (p *InProcess) StopTask(ctx context.Context, id string) error {
	m := p.tasks()
	if m == nil {
		return errNoTasks
	}
	_, err := m.Cancel(ctx, id, "stopped by the user")
	return err
}

func (r *Remote) TaskOutput(ctx context.Context, id string, max int) (string, error) {
	return outputTail(ctx, max, func(ctx context.Context, off int64) (logPage, error) {
		page, err := r.conn().ReadTaskLog(ctx, r.info.ID, id, off, taskLogPage)
		return logPage{data: page.Data, next: page.NextOffset, eof: page.EOF}, err
	})
}

func (r *Remote) StopTask(ctx context.Context, id string) error {
	return r.conn().CancelTask(ctx, r.info.ID, id, "stopped by the user")
}

var (
	_ TaskControl = (*InProcess)(nil)
	_ TaskControl = (*Remote)(nil)
)

package cli

import (
	"context"
	"strings"
	"time"

	"github.com/robota-sdk/robota-go/pkg/cli/output"
	"github.com/robota-sdk/robota-go/pkg/client"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/commands"
)

// groupLine is a session's group event as stream-json prints it.
func groupLine(ev *interactive.JobGroupEvent) (string, output.JobGroup) {
	g := ev.Group
	out := output.JobGroup{GroupID: g.ID, WaitPolicy: string(g.WaitPolicy), Status: string(g.Status), Label: g.Label, TaskIDs: g.TaskIDs}
	for _, r := range g.Results {
		out.Results = append(out.Results, output.JobResult{TaskID: r.TaskID, Label: r.Label, Status: string(r.Status),
			Summary: r.Summary, Error: r.Error, OutputRef: r.OutputRef})
	}
	return strings.TrimPrefix(string(ev.Type), "background_job_group_"), out
}

// clientGroupLine is an engine's group event as stream-json prints it (as in-process).
func clientGroupLine(e client.Event) (string, output.JobGroup) {
	g := e.Group
	out := output.JobGroup{GroupID: g.ID, WaitPolicy: g.WaitPolicy, Status: g.Status, Label: g.Label, TaskIDs: g.TaskIDs}
	for _, r := range g.Results {
		out.Results = append(out.Results, output.JobResult{TaskID: r.TaskID, Label: r.Label, Status: r.Status,
			Summary: r.Summary, Error: r.Error, OutputRef: r.OutputRef})
	}
	return e.GroupEvent, out
}

// withGroupEvents runs a slash command in process and prints the group events of the
// session while it runs (/agent parallel's group being created, gaining results,
// completing), so stream-json shows them before the command's result line.
func withGroupEvents(s *interactive.InteractiveSession, out *output.Writer,
	exec func(ctx context.Context, name, args string) (commands.Result, error)) func(ctx context.Context, name, args string) (commands.Result, error) {
	return func(ctx context.Context, name, args string) (commands.Result, error) {
		sub := s.SubscribeWith(interactive.SubscribeOptions{Exact: true})
		defer sub.Close()
		print := func(ev interactive.Event) {
			if ev.Type == interactive.EventBackgroundJobGroup && ev.Group != nil {
				out.JobGroup(groupLine(ev.Group))
			}
		}
		pctx, stop := context.WithCancel(context.Background())
		printed := make(chan struct{})
		go func() {
			defer close(printed)
			for {
				ev, err := sub.Next(pctx)
				if err != nil {
					return
				}
				print(ev)
			}
		}()
		res, err := exec(ctx, name, args)
		stop()
		<-printed
		// What the command published before it answered is queued: print it too.
		for {
			evs, err := sub.NextBatchWithin(context.Background(), 0, nil)
			if err != nil || len(evs) == 0 {
				break
			}
			for _, ev := range evs {
				print(ev)
			}
		}
		return res, err
	}
}

// engineGroupEvents runs a slash command in the engine and prints the session's group
// events (read with Watch) while it runs. After the command answered it reads on until
// the group the command answered about is seen as the command saw it, or a short while.
func (r *engineRun) engineGroupEvents(ctx context.Context,
	exec func(ctx context.Context, name, args string) (commands.Result, error)) func(ctx context.Context, name, args string) (commands.Result, error) {
	return func(cmdCtx context.Context, name, args string) (commands.Result, error) {
		wctx, cancel := context.WithCancel(ctx)
		defer cancel()
		w, werr := r.c.Watch(wctx, r.id, 0)
		if werr != nil {
			return exec(cmdCtx, name, args) // no events, but the command still runs
		}
		events := make(chan client.Event, 64)
		go func() {
			defer close(events)
			for {
				e, err := w.Next()
				if err != nil {
					return
				}
				if e.Type == client.EventBackgroundJobGroup && e.Group != nil {
					select {
					case events <- e:
					case <-wctx.Done():
						return
					}
				}
			}
		}()
		type answer struct {
			res commands.Result
			err error
		}
		answered := make(chan answer, 1)
		go func() {
			res, err := exec(cmdCtx, name, args)
			answered <- answer{res, err}
		}()
		var got *answer
		var timeout <-chan time.Time
		for {
			select {
			case e, ok := <-events:
				if !ok {
					if got == nil {
						a := <-answered
						return a.res, a.err
					}
					return got.res, got.err
				}
				r.out.JobGroup(clientGroupLine(e))
				if got != nil && seenAsAnswered(e, got.res) {
					return got.res, got.err
				}
			case a := <-answered:
				got = &a
				if _, ok := a.res.Data["groupId"]; !ok {
					return a.res, a.err
				}
				timeout = time.After(2 * time.Second)
			case <-timeout:
				return got.res, got.err
			}
		}
	}
}

// seenAsAnswered reports whether e shows the group of a command's answer as the command
// saw it: the same status and as many results (a detached group's creation, a waited
// group's completion).
func seenAsAnswered(e client.Event, res commands.Result) bool {
	id, _ := res.Data["groupId"].(string)
	if id == "" || e.Group.ID != id {
		return false
	}
	g, _ := res.Data["group"].(map[string]any)
	if g == nil {
		return e.GroupEvent == "created" // /agent parallel --detach answers ids, not the group
	}
	results, _ := g["results"].([]any)
	status, _ := g["status"].(string)
	return e.Group.Status == status && len(e.Group.Results) >= len(results)
}

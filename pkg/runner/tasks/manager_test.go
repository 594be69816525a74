package tasks

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

func newManager(t *testing.T, cfg Config) *BackgroundTaskManager {
	t.Helper()
	m, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// drain reads every event queued on sub.
func drain(t *testing.T, sub *Subscription) []Event {
	t.Helper()
	var out []Event
	for {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		ev, err := sub.Next(ctx)
		if err != nil {
			return out
		}
		out = append(out, ev)
	}
}

func types(evs []Event) []EventType {
	out := make([]EventType, len(evs))
	for i, e := range evs {
		out[i] = e.Type
	}
	return out
}

func TestLifecycle(t *testing.T) {
	boom := errors.New("dial worker: connection refused")
	tests := []struct {
		name     string
		req      Request
		steps    []step
		startErr error
		want     func(t *testing.T, got Task)
		events   []EventType
	}{{
		name:  "process completes",
		req:   processReq("echo hi"),
		steps: []step{started(42), text("hi\n"), completed("hi\n")},
		want: func(t *testing.T, got Task) {
			if got.State != StateCompleted || got.Result != "hi\n" || got.PID != 42 || got.OutputBytes != 3 ||
				got.ExitCode == nil || *got.ExitCode != 0 || got.Kind != KindProcess || got.Command != "echo hi" {
				t.Errorf("task = %+v", got)
			}
		},
		events: []EventType{EventQueued, EventStarted, EventSpawned, EventTextDelta, EventCompleted},
	}, {
		name:  "process fails with its exit code",
		req:   processReq("false"),
		steps: []step{started(7), failed("exit status 2", 2)},
		want: func(t *testing.T, got Task) {
			if got.State != StateFailed || got.Error != "exit status 2" || *got.ExitCode != 2 || got.TimeoutReason != "" {
				t.Errorf("task = %+v", got)
			}
		},
		events: []EventType{EventQueued, EventStarted, EventSpawned, EventFailed},
	}, {
		name:     "runner cannot start the job",
		req:      agentReq("look"),
		startErr: boom,
		want: func(t *testing.T, got Task) {
			if got.State != StateFailed || got.Error != "runner: "+boom.Error() || got.ErrorCategory != "runner" {
				t.Errorf("task = %+v", got)
			}
		},
		events: []EventType{EventQueued, EventStarted, EventFailed},
	}, {
		name:  "runner ends without a terminal event",
		req:   agentReq("look"),
		steps: []step{started(1)},
		want: func(t *testing.T, got Task) {
			if got.State != StateFailed || !strings.Contains(got.Error, "without a terminal event") {
				t.Errorf("task = %+v", got)
			}
		},
		events: []EventType{EventQueued, EventStarted, EventSpawned, EventFailed},
	}, {
		name: "agent reports its tools as currentAction",
		req:  agentReq("look"),
		steps: []step{started(9), toolStart("c1", "Read", "go.mod"), toolEnd("c1", "Read", ""),
			toolStart("c2", "Bash", "ls"), toolEnd("c2", "Bash", "exit 1"), completed("done")},
		want: func(t *testing.T, got Task) {
			if got.State != StateCompleted || got.Result != "done" || got.AgentType != "Explore" || got.ExitCode != nil || got.CurrentAction != nil {
				t.Errorf("task = %+v", got)
			}
		},
		events: []EventType{EventQueued, EventStarted, EventSpawned, EventToolStart, EventToolEnd, EventToolStart, EventToolEnd, EventCompleted},
	}, {
		name:  "late events after the terminal one are ignored",
		req:   processReq("x"),
		steps: []step{completed("a"), text("late"), failed("late", 1)},
		want: func(t *testing.T, got Task) {
			if got.State != StateCompleted || got.OutputBytes != 0 {
				t.Errorf("task = %+v", got)
			}
		},
		events: []EventType{EventQueued, EventStarted, EventCompleted},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFake(fixed(tt.steps...))
				f.startErr = tt.startErr
				m := newManager(t, Config{Runner: f})
				sub := m.Subscribe(SubscribeOptions{})
				task, err := m.Spawn(tt.req)
				if err != nil {
					t.Fatal(err)
				}
				got, err := m.Wait(t.Context(), task.ID)
				if err != nil {
					t.Fatal(err)
				}
				tt.want(t, got[0])
				synctest.Wait()
				evs := drain(t, sub)
				if !slices.Equal(types(evs), tt.events) {
					t.Errorf("events = %v, want %v", types(evs), tt.events)
				}
				var last State
				for i, e := range evs {
					if e.Seq != uint64(i+1) || e.TaskID != task.ID {
						t.Errorf("event %d = seq %d task %s", i, e.Seq, e.TaskID)
					}
					if e.Task == nil || e.Task.State == last {
						continue
					}
					if last != "" && !CanTransition(last, e.Task.State) {
						t.Errorf("event %d: %s → %s", i, last, e.Task.State)
					}
					last = e.Task.State
				}
			})
		})
	}
}

func TestCurrentAction(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake(fixed(started(1), toolStart("a", "Read", "x.go"), toolStart("b", "Grep", "TODO"),
			sleepFor(time.Second), toolEnd("b", "Grep", ""), sleepFor(time.Second),
			toolEnd("a", "Read", "no such file"), sleepFor(time.Second), hang))
		m := newManager(t, Config{Runner: f})
		task, _ := m.Spawn(agentReq("p"))
		want := []*Action{
			{CallID: "b", Tool: "Grep", Arg: "TODO"},                        // the newest open call
			{CallID: "a", Tool: "Read", Arg: "x.go"},                        // b ended: a is current again
			{CallID: "a", Tool: "Read", Arg: "x.go", Error: "no such file"}, // a failed: kept with its error
		}
		for i, w := range want {
			synctest.Wait()
			got, _ := m.Get(task.ID)
			a := got.CurrentAction
			if a == nil || a.CallID != w.CallID || a.Tool != w.Tool || a.Arg != w.Arg || a.Error != w.Error {
				t.Errorf("step %d: currentAction = %+v, want %+v", i, a, w)
			}
			time.Sleep(time.Second)
		}
		_, _ = m.Cancel(t.Context(), task.ID, "done")
	})
}

func TestConcurrencyBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake(fixed(started(1), hang))
		m := newManager(t, Config{Runner: f, MaxConcurrent: 2})
		var ids []string
		for i := range 5 {
			task, err := m.Spawn(processReq("sleep " + string(rune('a'+i))))
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, task.ID)
		}
		synctest.Wait()
		states := func() []State {
			var s []State
			for _, task := range m.List(Filter{}) {
				s = append(s, task.State)
			}
			return s
		}
		if got := states(); !slices.Equal(got, []State{StateRunning, StateRunning, StateQueued, StateQueued, StateQueued}) {
			t.Fatalf("states = %v", got)
		}
		// A queued task cancels at once and never reaches the runner.
		got, err := m.Cancel(t.Context(), ids[3], "not needed")
		if err != nil || got.State != StateCancelled || got.CancelReason != "not needed" || got.StartedAt != nil {
			t.Fatalf("cancel queued = %+v, %v", got, err)
		}
		// Ending a running one frees its slot for the oldest queued task.
		if _, err := m.Cancel(t.Context(), ids[0], "stop"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if got := states(); !slices.Equal(got, []State{StateCancelled, StateRunning, StateRunning, StateCancelled, StateQueued}) {
			t.Fatalf("after cancel: states = %v", got)
		}
		if err := m.Shutdown(t.Context(), "bye"); err != nil {
			t.Fatal(err)
		}
		if f.maxActive != 2 || f.startedN != 3 {
			t.Errorf("runner saw %d at once, %d started; want 2 and 3", f.maxActive, f.startedN)
		}
		if _, err := m.Spawn(processReq("late")); !errors.Is(err, ErrManagerClosed) {
			t.Errorf("spawn after shutdown: %v", err)
		}
	})
}

func TestCancel(t *testing.T) {
	tests := []struct {
		name         string
		ignoreCancel bool
		steps        []step
		wantState    State
	}{
		{name: "runner cancels the job", steps: []step{started(3), hang}, wantState: StateCancelled},
		// The runner acknowledges but the job never ends: after CancelGrace the
		// manager cancels the Start context.
		{name: "runner ignores the cancel", ignoreCancel: true, steps: []step{started(3), hang}, wantState: StateCancelled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFake(fixed(tt.steps...))
				f.ignoreCancel = tt.ignoreCancel
				m := newManager(t, Config{Runner: f, CancelGrace: 3 * time.Second})
				task, _ := m.Spawn(processReq("sleep 100"))
				synctest.Wait()
				start := time.Now()
				got, err := m.Cancel(t.Context(), task.ID, "user stop")
				if err != nil {
					t.Fatal(err)
				}
				if got.State != tt.wantState || got.CancelReason != "user stop" {
					t.Errorf("task = %+v", got)
				}
				if waited := time.Since(start); tt.ignoreCancel != (waited == 3*time.Second) {
					t.Errorf("cancel took %v", waited)
				}
				if calls := f.cancelCalls(); !slices.Equal(calls, []string{task.ID + ":user stop"}) {
					t.Errorf("runner cancels = %v", calls)
				}
				if _, err := m.Cancel(t.Context(), task.ID, "again"); !errors.Is(err, ErrTaskEnded) {
					t.Errorf("second cancel: %v", err)
				}
			})
		})
	}
}

func TestCancelMapsFailureToCancelled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake(func(runnerapi.Job) []step { return []step{started(1), hang} })
		f.ignoreCancel = true
		m := newManager(t, Config{Runner: f})
		task, _ := m.Spawn(processReq("sleep 1"))
		synctest.Wait()
		m.mu.Lock()
		tk := m.tasks[task.ID]
		m.mu.Unlock()
		go func() { _, _ = m.Cancel(context.Background(), task.ID, "stop") }()
		synctest.Wait()
		m.onEvent(tk, runnerapi.Event{Kind: runnerapi.EventFailed, Error: "signal: killed", ExitCode: -1})
		got, _ := m.Get(task.ID)
		if got.State != StateCancelled || got.CancelReason != "stop" || got.Error != "signal: killed" {
			t.Errorf("task = %+v", got)
		}
		_ = m.Shutdown(t.Context(), "end")
	})
}

func TestCloseSendReadLog(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake(fixed(started(5), text("line 1\n"), text("line 2\n"), hang))
		m := newManager(t, Config{Runner: f})
		sub := m.Subscribe(SubscribeOptions{})
		task, _ := m.Spawn(processReq("tail -f"))
		synctest.Wait()

		if _, err := m.Close(task.ID); !errors.Is(err, ErrTaskActive) {
			t.Errorf("close running: %v", err)
		}
		if err := m.Send(t.Context(), task.ID, "q"); err != nil || !slices.Equal(f.sent, []string{task.ID + ":q"}) {
			t.Errorf("send: %v, runner got %v", err, f.sent)
		}
		page, err := m.ReadLog(t.Context(), task.ID, 2, 5)
		if err != nil || string(page.Data) != "ne 1\n" || page.NextOffset != 7 {
			t.Errorf("read log = %q %d, %v", page.Data, page.NextOffset, err)
		}
		// The runner lost the log (its worker died): the manager's tail serves it.
		f.logErr = errWorkerGone
		page, err = m.ReadLog(t.Context(), task.ID, 7, 0)
		if err != nil || string(page.Data) != "line 2\n" || page.NextOffset != 14 || page.EOF {
			t.Errorf("read tail = %q %d %v, %v", page.Data, page.NextOffset, page.EOF, err)
		}

		if _, err := m.Cancel(t.Context(), task.ID, "stop"); err != nil {
			t.Fatal(err)
		}
		if err := m.Send(t.Context(), task.ID, "q"); !errors.Is(err, ErrTaskEnded) {
			t.Errorf("send to ended: %v", err)
		}
		page, _ = m.ReadLog(t.Context(), task.ID, 0, 0)
		if string(page.Data) != "line 1\nline 2\n" || !page.EOF {
			t.Errorf("read ended tail = %q eof %v", page.Data, page.EOF)
		}
		closed, err := m.Close(task.ID)
		if err != nil || closed.State != StateCancelled {
			t.Fatalf("close = %+v, %v", closed, err)
		}
		if _, err := m.Get(task.ID); !errors.Is(err, ErrUnknownTask) {
			t.Errorf("get closed: %v", err)
		}
		if _, err := m.Close(task.ID); !errors.Is(err, ErrUnknownTask) {
			t.Errorf("close twice: %v", err)
		}
		evs := drain(t, sub)
		if last := evs[len(evs)-1]; last.Type != EventClosed || last.Task.State != StateCancelled {
			t.Errorf("last event = %+v", last)
		}
	})
}

func TestWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake(func(job runnerapi.Job) []step {
			d := map[string]time.Duration{"fast": time.Second, "slow": time.Minute}[job.Process.Command]
			return []step{started(1), sleepFor(d), completed(job.Process.Command)}
		})
		m := newManager(t, Config{Runner: f})
		slow, _ := m.Spawn(processReq("slow"))
		fast, _ := m.Spawn(processReq("fast"))

		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		if _, err := m.Wait(ctx, fast.ID, slow.ID); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("wait with short deadline: %v", err)
		}
		got, err := m.Wait(t.Context(), slow.ID, fast.ID)
		if err != nil || got[0].Result != "slow" || got[1].Result != "fast" {
			t.Fatalf("wait = %+v, %v", got, err)
		}
		if _, err := m.Wait(t.Context(), "nope"); !errors.Is(err, ErrUnknownTask) {
			t.Errorf("wait unknown: %v", err)
		}
	})
}

func TestSpawnRejects(t *testing.T) {
	f := newFake(fixed())
	m := newManager(t, Config{Runner: f, NewID: func(Request) string { return "same" }})
	tests := []struct {
		name string
		req  Request
	}{
		{"no job", Request{}},
		{"both kinds", Request{Job: runnerapi.Job{Agent: &runnerapi.AgentJob{Prompt: "p"}, Process: &runnerapi.ProcessJob{Command: "c"}}}},
		{"empty prompt", agentReq("  ")},
		{"empty command", processReq("")},
	}
	for _, tt := range tests {
		if _, err := m.Spawn(tt.req); !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
	if _, err := m.Spawn(processReq("a")); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Spawn(processReq("b")); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("duplicate id: %v", err)
	}
	if _, err := New(Config{}); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("no runner: %v", err)
	}
}

// RunnerFor is the seam for a remote dispatcher: each task's controls go to the
// runner chosen for its job.
func TestRunnerFor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		local, remote := newFake(fixed(started(1), hang)), newFake(fixed(started(2), hang))
		m := newManager(t, Config{RunnerFor: func(job runnerapi.Job) (Runner, error) {
			if job.Agent != nil {
				return remote, nil
			}
			return local, nil
		}})
		a, _ := m.Spawn(agentReq("p"))
		p, _ := m.Spawn(processReq("c"))
		synctest.Wait()
		_, _ = m.Cancel(t.Context(), a.ID, "x")
		_, _ = m.Cancel(t.Context(), p.ID, "y")
		if got := remote.cancelCalls(); !slices.Equal(got, []string{a.ID + ":x"}) {
			t.Errorf("remote cancels = %v", got)
		}
		if got := local.cancelCalls(); !slices.Equal(got, []string{p.ID + ":y"}) {
			t.Errorf("local cancels = %v", got)
		}
		noRunner := errors.New("no host for agent jobs")
		m2 := newManager(t, Config{RunnerFor: func(runnerapi.Job) (Runner, error) { return nil, noRunner }})
		if _, err := m2.Spawn(agentReq("p")); !errors.Is(err, noRunner) {
			t.Errorf("spawn without runner: %v", err)
		}
	})
}

func TestWaitingPermission(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake(fixed(started(1), toolStart("c", "Bash", "rm -rf build"), hang))
		m := newManager(t, Config{Runner: f, Watchdog: Watchdog{IdleTimeout: 10 * time.Second}})
		sub := m.Subscribe(SubscribeOptions{})
		task, _ := m.Spawn(agentReq("a"))
		synctest.Wait()
		if err := m.SetWaitingPermission(task.ID, true, ToolCall{}); err != nil {
			t.Fatal(err)
		}
		got, _ := m.Get(task.ID)
		if got.State != StateWaitingPermission {
			t.Fatalf("state = %s", got.State)
		}
		// The user takes a minute to answer: the idle watchdog does not count it.
		time.Sleep(time.Minute)
		if got, _ := m.Get(task.ID); got.State != StateWaitingPermission {
			t.Fatalf("state after a minute = %s (%s)", got.State, got.Error)
		}
		if err := m.SetWaitingPermission(task.ID, false, ToolCall{}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(11 * time.Second)
		got, _ = m.Get(task.ID)
		if got.State != StateFailed || got.TimeoutReason != TimeoutIdle {
			t.Errorf("after resuming and idling: %+v", got)
		}
		if err := m.SetWaitingPermission(task.ID, true, ToolCall{}); !errors.Is(err, ErrTaskEnded) {
			t.Errorf("set on ended task: %v", err)
		}
		synctest.Wait()
		want := []EventType{EventQueued, EventStarted, EventSpawned, EventToolStart, EventWaitingPermission, EventResumed, EventFailed}
		if got := types(drain(t, sub)); !slices.Equal(got, want) {
			t.Errorf("events = %v", got)
		}
	})
}

// An ask reaches the manager before the job's tool_start of the same call (they travel
// by different paths): the waiting snapshot already names the call, the late
// tool_start does not open it twice, and its tool_end leaves no action behind.
func TestAskBeforeToolStartNamesTheCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFake(fixed(started(1), sleepFor(time.Second), toolStart("c", "Bash", "make"),
			sleepFor(time.Second), toolEnd("c", "Bash", ""), hang))
		m := newManager(t, Config{Runner: f})
		task, _ := m.Spawn(agentReq("a"))
		synctest.Wait()
		if err := m.SetWaitingPermission(task.ID, true, ToolCall{CallID: "c", Name: "Bash", Arg: "make"}); err != nil {
			t.Fatal(err)
		}
		got, _ := m.Get(task.ID)
		if got.State != StateWaitingPermission || got.CurrentAction == nil || got.CurrentAction.Tool != "Bash" ||
			got.CurrentAction.Arg != "make" || got.CurrentAction.CallID != "c" {
			t.Fatalf("waiting snapshot = %+v, want the asked Bash as its current action", got)
		}
		if err := m.SetWaitingPermission(task.ID, false, ToolCall{CallID: "c", Name: "Bash", Arg: "make"}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(1500 * time.Millisecond) // the tool_start has come
		if got, _ := m.Get(task.ID); got.CurrentAction == nil || got.CurrentAction.CallID != "c" {
			t.Fatalf("running snapshot = %+v, want the Bash still current", got)
		}
		time.Sleep(time.Second) // and its tool_end
		if got, _ := m.Get(task.ID); got.CurrentAction != nil {
			t.Fatalf("after the tool_end the current action is %+v, want none: the call was opened twice", got.CurrentAction)
		}
		if _, err := m.Cancel(t.Context(), task.ID, "test over"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
	})
}

func TestCanTransition(t *testing.T) {
	all := []State{StateQueued, StateRunning, StateWaitingPermission, StateCompleted, StateFailed, StateCancelled}
	allowed := map[State][]State{
		StateQueued:            {StateRunning, StateCancelled, StateFailed},
		StateRunning:           {StateQueued, StateWaitingPermission, StateCompleted, StateFailed, StateCancelled},
		StateWaitingPermission: {StateRunning, StateCompleted, StateFailed, StateCancelled},
	}
	for _, from := range all {
		for _, to := range all {
			if got, want := CanTransition(from, to), slices.Contains(allowed[from], to); got != want {
				t.Errorf("CanTransition(%s, %s) = %v, want %v", from, to, got, want)
			}
		}
	}
}

// A job its runner has not placed yet (a remote job no host agent took) shows as
// queued, saying what it waits for; the wait is not idleness; its start makes it
// running again.
func TestWaitingForARunner(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		waiting := step{ev: runnerapi.Event{Kind: runnerapi.EventWaiting, Reason: "waiting for a host agent offering gpu=a100"}}
		f := newFake(fixed(waiting, sleepFor(time.Minute), started(7), completed("done")))
		m := newManager(t, Config{Runner: f, Watchdog: Watchdog{IdleTimeout: 10 * time.Second}})
		sub := m.Subscribe(SubscribeOptions{})
		task, _ := m.Spawn(processReq("nvidia-smi"))
		time.Sleep(time.Second)
		got, _ := m.Get(task.ID)
		if got.State != StateQueued || got.CurrentAction == nil || !strings.Contains(got.CurrentAction.Tool, "gpu=a100") {
			t.Fatalf("while waiting: state %s, action %+v; want queued, naming the label", got.State, got.CurrentAction)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		got, _ = m.Get(task.ID)
		if got.State != StateCompleted || got.PID != 7 || got.CurrentAction != nil {
			t.Fatalf("after the start: %+v", got)
		}
		want := []EventType{EventQueued, EventStarted, EventQueued, EventSpawned, EventCompleted}
		if got := types(drain(t, sub)); !slices.Equal(got, want) {
			t.Errorf("events = %v, want %v", got, want)
		}
	})
}

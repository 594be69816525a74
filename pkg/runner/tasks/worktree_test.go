package tasks

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// fakeGit is a WorktreeAdapter that records its calls.
type fakeGit struct {
	root       string
	rootErr    error
	createErr  error
	changed    bool
	changedErr error

	mu    sync.Mutex
	calls []string
}

func (g *fakeGit) log(s string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.calls = append(g.calls, s)
}

func (g *fakeGit) Root(_ context.Context, dir string) (string, error) {
	g.log("root " + dir)
	return g.root, g.rootErr
}

func (g *fakeGit) Create(_ context.Context, root, name string) (Worktree, error) {
	g.log("create " + root + " " + name)
	if g.createErr != nil {
		return Worktree{}, g.createErr
	}
	return Worktree{Name: name, Path: "/wt/" + name, Branch: "worktree-" + name, Root: root, Base: "abc"}, nil
}

func (g *fakeGit) Changed(_ context.Context, wt Worktree) (bool, error) {
	g.log("changed " + wt.Path)
	return g.changed, g.changedErr
}

func (g *fakeGit) Remove(_ context.Context, wt Worktree) error {
	g.log("remove " + wt.Path + " " + wt.Branch)
	return nil
}

type fakeHooks struct {
	path string
	err  error

	mu    sync.Mutex
	calls []string
}

func (h *fakeHooks) WorktreeCreate(_ context.Context, in WorktreeHookInput) (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls = append(h.calls, "create "+in.Name+" "+in.Cwd+" "+in.AgentType)
	return h.path, h.err
}

func (h *fakeHooks) WorktreeRemove(_ context.Context, in WorktreeHookInput) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls = append(h.calls, "remove "+in.WorktreePath)
}

func TestWorktreeSubagentRunner(t *testing.T) {
	crash := errors.New("worker killed: signal: killed")
	tests := []struct {
		name      string
		isolation string
		git       *fakeGit
		hooks     *fakeHooks
		startErr  error
		steps     []step

		wantCwd      string // the inner job's cwd; "" when the job never reached it
		wantState    State
		wantErr      string
		wantPath     string // worktree on the terminal snapshot
		wantBranch   string
		wantGit      []string
		wantHooks    []string
		wantWTEvents []string // path of each background_task_worktree event
	}{{
		name:      "no isolation passes the job through",
		isolation: "",
		git:       &fakeGit{root: "/repo"},
		steps:     []step{completed("ok")},
		wantCwd:   "/repo/pkg/x", wantState: StateCompleted,
	}, {
		name:      "clean worktree is removed",
		isolation: IsolationWorktree,
		git:       &fakeGit{root: "/repo"},
		hooks:     &fakeHooks{},
		steps:     []step{started(1), completed("ok")},
		wantCwd:   "/wt/agent-agent_1/pkg/x", wantState: StateCompleted,
		wantGit:      []string{"root /repo/pkg/x", "create /repo agent-agent_1", "changed /wt/agent-agent_1", "remove /wt/agent-agent_1 worktree-agent-agent_1"},
		wantHooks:    []string{"create agent-agent_1 /repo/pkg/x Explore", "remove /wt/agent-agent_1"},
		wantWTEvents: []string{"/wt/agent-agent_1", ""},
	}, {
		name:      "dirty worktree is kept and reported",
		isolation: IsolationWorktree,
		git:       &fakeGit{root: "/repo", changed: true},
		hooks:     &fakeHooks{},
		steps:     []step{started(1), completed("edited")},
		wantCwd:   "/wt/agent-agent_1/pkg/x", wantState: StateCompleted,
		wantPath: "/wt/agent-agent_1", wantBranch: "worktree-agent-agent_1",
		wantGit:      []string{"root /repo/pkg/x", "create /repo agent-agent_1", "changed /wt/agent-agent_1"},
		wantHooks:    []string{"create agent-agent_1 /repo/pkg/x Explore"},
		wantWTEvents: []string{"/wt/agent-agent_1"},
	}, {
		name:      "a worktree whose state is unknown is kept",
		isolation: IsolationWorktree,
		git:       &fakeGit{root: "/repo", changedErr: errors.New("git status: index locked")},
		steps:     []step{failed("model error", 0)},
		wantCwd:   "/wt/agent-agent_1/pkg/x", wantState: StateFailed, wantErr: "model error",
		wantPath: "/wt/agent-agent_1", wantBranch: "worktree-agent-agent_1",
		wantGit:      []string{"root /repo/pkg/x", "create /repo agent-agent_1", "changed /wt/agent-agent_1"},
		wantWTEvents: []string{"/wt/agent-agent_1"},
	}, {
		name:      "not a git repository fails the job",
		isolation: IsolationWorktree,
		git:       &fakeGit{rootErr: fmt.Errorf("/repo/pkg/x: %w", ErrNotGitRepo)},
		wantState: StateFailed, wantErr: "worktree isolation: cwd /repo/pkg/x: /repo/pkg/x: not a git repository",
		wantGit: []string{"root /repo/pkg/x"},
	}, {
		name:      "git cannot create the worktree",
		isolation: IsolationWorktree,
		git:       &fakeGit{root: "/repo", createErr: errors.New("the repository needs a commit to branch from")},
		wantState: StateFailed, wantErr: "worktree isolation: create worktree agent-agent_1: the repository needs a commit to branch from",
		wantGit: []string{"root /repo/pkg/x", "create /repo agent-agent_1"},
	}, {
		name:      "a WorktreeCreate hook that blocks fails the job",
		isolation: IsolationWorktree,
		git:       &fakeGit{root: "/repo"},
		hooks:     &fakeHooks{err: errors.New("blocked: no worktrees on this branch")},
		wantState: StateFailed, wantErr: "worktree isolation: WorktreeCreate hook: blocked: no worktrees on this branch",
		wantGit:   []string{"root /repo/pkg/x"},
		wantHooks: []string{"create agent-agent_1 /repo/pkg/x Explore"},
	}, {
		name:      "a WorktreeCreate hook's path replaces git",
		isolation: IsolationWorktree,
		git:       &fakeGit{root: "/repo"},
		hooks:     &fakeHooks{path: "/jj/ws1"},
		steps:     []step{completed("ok")},
		wantCwd:   "/jj/ws1/pkg/x", wantState: StateCompleted,
		// Clean: the hook removes it, git does not.
		wantGit:      []string{"root /repo/pkg/x", "changed /jj/ws1"},
		wantHooks:    []string{"create agent-agent_1 /repo/pkg/x Explore", "remove /jj/ws1"},
		wantWTEvents: []string{"/jj/ws1", ""},
	}, {
		name:      "a crashed job still cleans its worktree",
		isolation: IsolationWorktree,
		git:       &fakeGit{root: "/repo"},
		startErr:  crash,
		wantCwd:   "/wt/agent-agent_1/pkg/x", wantState: StateFailed, wantErr: "runner: " + crash.Error(),
		wantGit:      []string{"root /repo/pkg/x", "create /repo agent-agent_1", "changed /wt/agent-agent_1", "remove /wt/agent-agent_1 worktree-agent-agent_1"},
		wantWTEvents: []string{"/wt/agent-agent_1", ""},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var gotCwd string
				inner := newFake(func(job runnerapi.Job) []step {
					gotCwd = job.Agent.Cwd
					return tt.steps
				})
				var hooks WorktreeHooks
				if tt.hooks != nil {
					hooks = tt.hooks
				}
				var r Runner = NewWorktreeSubagentRunner(crashing{inner, tt.startErr}, tt.git, hooks)
				m := newManager(t, Config{Runner: r})
				sub := m.Subscribe(SubscribeOptions{})
				req := agentReq("fix")
				req.Job.Agent.Cwd = "/repo/pkg/x"
				req.Job.Agent.Isolation = tt.isolation
				task, _ := m.Spawn(req)
				res, err := m.Wait(t.Context(), task.ID)
				if err != nil {
					t.Fatal(err)
				}
				got := res[0]
				if gotCwd != tt.wantCwd {
					t.Errorf("job cwd = %q, want %q", gotCwd, tt.wantCwd)
				}
				if got.State != tt.wantState || got.Error != tt.wantErr || got.WorktreePath != tt.wantPath || got.WorktreeBranch != tt.wantBranch {
					t.Errorf("task = %s %q %q %q; want %s %q %q %q", got.State, got.Error, got.WorktreePath, got.WorktreeBranch,
						tt.wantState, tt.wantErr, tt.wantPath, tt.wantBranch)
				}
				if tt.isolation == "" {
					tt.wantGit = nil
				}
				if !slices.Equal(tt.git.calls, tt.wantGit) {
					t.Errorf("git calls = %q\nwant %q", tt.git.calls, tt.wantGit)
				}
				if tt.hooks != nil && !slices.Equal(tt.hooks.calls, tt.wantHooks) {
					t.Errorf("hook calls = %q\nwant %q", tt.hooks.calls, tt.wantHooks)
				}
				synctest.Wait()
				var wtEvents []string
				var terminal *Event
				for _, ev := range drain(t, sub) {
					switch {
					case ev.Type == EventWorktree:
						if terminal != nil {
							t.Errorf("worktree event after the terminal one")
						}
						wtEvents = append(wtEvents, ev.Task.WorktreePath)
					case ev.Task != nil && ev.Task.State.Terminal():
						terminal = &ev
					}
				}
				if !slices.Equal(wtEvents, tt.wantWTEvents) {
					t.Errorf("worktree events = %q, want %q", wtEvents, tt.wantWTEvents)
				}
				// The terminal event carries the kept worktree.
				if terminal == nil || terminal.Task.WorktreePath != tt.wantPath || terminal.Task.WorktreeBranch != tt.wantBranch {
					t.Errorf("terminal event = %+v", terminal)
				}
			})
		})
	}
}

// crashing is a runner whose Start runs the job's script, then fails with err
// without a terminal event (a worker killed mid-job).
type crashing struct {
	*fakeRunner
	err error
}

func (c crashing) Start(ctx context.Context, job runnerapi.Job, emit func(runnerapi.Event) error) error {
	if err := c.fakeRunner.Start(ctx, job, emit); err != nil || c.err == nil {
		return err
	}
	return c.err
}

func TestWorktreeName(t *testing.T) {
	for in, want := range map[string]string{"agent_1": "agent-agent_1", "a/b c": "agent-a-b-c", "x.y": "agent-x-y"} {
		if got := worktreeName(in); got != want {
			t.Errorf("worktreeName(%q) = %q, want %q", in, got, want)
		}
	}
	if got := subdir("/repo", "/repo/a/b"); got != "a/b" {
		t.Errorf("subdir = %q", got)
	}
	for _, cwd := range []string{"/repo", "/other", "/repo/../x", ""} {
		if got := subdir("/repo", cwd); got != "" {
			t.Errorf("subdir(/repo, %q) = %q", cwd, got)
		}
	}
}

// A watchdog ends the task before the job: the kept worktree is reported after the
// failed event, and the snapshot keeps it.
func TestWorktreeAfterWatchdog(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		inner := newFake(fixed(started(1), text("editing\n"), hang))
		git := &fakeGit{root: "/repo", changed: true}
		m := newManager(t, Config{Runner: NewWorktreeSubagentRunner(inner, git, nil)})
		sub := m.Subscribe(SubscribeOptions{})
		req := agentReq("fix")
		req.Job.Agent.Isolation = IsolationWorktree
		req.Watchdog = Watchdog{IdleTimeout: time.Minute}
		task, _ := m.Spawn(req)
		_, _ = m.Wait(t.Context(), task.ID)
		synctest.Wait()
		got, _ := m.Get(task.ID)
		if got.State != StateFailed || got.TimeoutReason != TimeoutIdle || got.WorktreePath != "/wt/agent-agent_1" {
			t.Errorf("task = %+v", got)
		}
		var order []EventType
		for _, ev := range drain(t, sub) {
			if ev.Type == EventFailed || ev.Type == EventWorktree {
				order = append(order, ev.Type)
			}
		}
		// Reported when created, then kept after the failure (the same path, so no
		// second change event).
		if !slices.Equal(order, []EventType{EventWorktree, EventFailed}) {
			t.Errorf("events = %v", order)
		}
	})
}

// worktreeHost records what the WorktreeSubagentRunner tells a CwdHost.
type worktreeHost struct {
	runnerapi.Host
	got *[]string
}

func (h worktreeHost) InWorktree(cwd, dir, origin string) runnerapi.Host {
	*h.got = append(*h.got, cwd+" "+dir+" "+origin)
	return h
}

// ctxRecorder records what WorktreeFrom tells the inner runner.
type ctxRecorder struct {
	Runner
	got *[]string
}

func (c ctxRecorder) Start(ctx context.Context, job runnerapi.Job, emit func(runnerapi.Event) error) error {
	if dir, origin, ok := WorktreeFrom(ctx); ok {
		*c.got = append(*c.got, job.Agent.Cwd+" "+dir+" "+origin)
	}
	return c.Runner.Start(ctx, job, emit)
}

// The job's Host learns where the job runs, which worktree that is and what it is a
// copy of (the repository; the job's cwd for a hook's worktree outside git), so the
// engine decides its calls with the worktree as its project; the inner runner learns
// the same from its context (WorktreeFrom).
func TestWorktreeHostLearnsItsCopy(t *testing.T) {
	tests := []struct {
		name  string
		git   *fakeGit
		hooks *fakeHooks
		want  string
	}{
		{"git worktree", &fakeGit{root: "/repo"}, nil, "/wt/agent-agent_1/pkg/x /wt/agent-agent_1 /repo"},
		{"hook worktree outside git", &fakeGit{rootErr: ErrNotGitRepo}, &fakeHooks{path: "/jj/ws1"}, "/jj/ws1 /jj/ws1 /repo/pkg/x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var hooks WorktreeHooks
				if tt.hooks != nil {
					hooks = tt.hooks
				}
				var got, inner []string
				m := newManager(t, Config{Runner: NewWorktreeSubagentRunner(ctxRecorder{newFake(fixed(completed("ok"))), &inner}, tt.git, hooks)})
				req := agentReq("fix")
				req.Job.Agent.Cwd = "/repo/pkg/x"
				req.Job.Agent.Isolation = IsolationWorktree
				req.Job.Host = worktreeHost{got: &got}
				task, _ := m.Spawn(req)
				if _, err := m.Wait(t.Context(), task.ID); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, []string{tt.want}) {
					t.Errorf("InWorktree calls %q, want %q", got, tt.want)
				}
				if !slices.Equal(inner, []string{tt.want}) {
					t.Errorf("the inner runner's WorktreeFrom: %q, want %q", inner, tt.want)
				}
			})
		})
	}
}

package tasks

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// Worktree is a prepared worktree (the spec's IPreparedSubagentWorktree).
type Worktree struct {
	Name string
	// Path is the worktree's top directory; Branch the branch checked out there.
	Path   string
	Branch string
	// Root is the repository the job's cwd is in ("" when a hook made the worktree
	// for a cwd outside git); Base the commit the branch started from ("" unknown).
	Root string
	Base string
	// ByHook: a WorktreeCreate hook made it, so git does not remove it.
	ByHook bool
}

// WorktreeAdapter does the worktree I/O (the spec's ISubagentWorktreeAdapter);
// GitWorktrees is the git CLI one.
type WorktreeAdapter interface {
	// Root returns the top directory of the git repository holding dir, or an error
	// wrapping ErrNotGitRepo.
	Root(ctx context.Context, dir string) (string, error)
	// Create makes a worktree of the repository root, named name, on a new branch
	// from root's HEAD.
	Create(ctx context.Context, root, name string) (Worktree, error)
	// Changed reports whether wt holds work: uncommitted or untracked files, or
	// commits beyond wt.Base.
	Changed(ctx context.Context, wt Worktree) (bool, error)
	// Remove deletes the worktree and its branch.
	Remove(ctx context.Context, wt Worktree) error
}

// CwdHost is a job Host whose decisions depend on the job's working directory (the
// engine's permission pipeline resolves relative paths and confines writes to it): the
// WorktreeSubagentRunner gives it the worktree directory the job runs in.
type CwdHost interface {
	runnerapi.Host
	// InWorktree returns the Host of the job running in cwd, a directory of the worktree
	// dir, which is a copy of origin (the repository the job's cwd was in, or that cwd
	// when a WorktreeCreate hook made the worktree outside git). The engine makes dir
	// the job's project and holds the project's deny rules for both copies of a file.
	InWorktree(cwd, dir, origin string) runnerapi.Host
}

// worktreeKey marks the context of a job the WorktreeSubagentRunner runs: its worktree
// and the directory that is a copy of.
type worktreeKey struct{}

// WorktreeFrom returns, from the context the WorktreeSubagentRunner hands its inner
// runner, the worktree the job runs in and the directory it is a copy of (see
// CwdHost.InWorktree), so a runner decorator can apply to the worktree what holds for
// the project (a sandbox policy's paths).
func WorktreeFrom(ctx context.Context) (dir, origin string, ok bool) {
	v, ok := ctx.Value(worktreeKey{}).([2]string)
	return v[0], v[1], ok
}

// WorktreeHookInput is what the worktree hooks get. Name and (for remove)
// WorktreePath are Claude Code's stdin fields (`name`, `worktree_path`); Cwd is the
// hook's cwd; JobID and AgentType say which subagent it is for.
type WorktreeHookInput struct {
	Name         string
	WorktreePath string
	Cwd          string
	JobID        string
	AgentType    string
}

// WorktreeHooks runs the WorktreeCreate and WorktreeRemove hooks; the engine adapts
// its hook runner (pkg/engine/hook) to it.
type WorktreeHooks interface {
	// WorktreeCreate runs the WorktreeCreate hooks. As in Claude Code, a hook that
	// answers with a path has created the worktree itself (a non-git VCS, a custom
	// layout) and git is not used; "" lets git create it. An error (a hook blocked
	// or failed) fails the job with it.
	WorktreeCreate(ctx context.Context, in WorktreeHookInput) (path string, err error)
	// WorktreeRemove notifies the WorktreeRemove hooks that a clean worktree is being
	// removed (they remove a hook-made one); they cannot block.
	WorktreeRemove(ctx context.Context, in WorktreeHookInput)
}

// cleanupTimeout bounds the git calls that remove or keep a worktree after the job,
// which run even when the job was cancelled.
const cleanupTimeout = time.Minute

// WorktreeSubagentRunner decorates a Runner with worktree isolation (the spec's
// WorktreeSubagentRunner). Agent jobs with Isolation "worktree" run in a new git
// worktree on a new branch; every other job goes to the inner runner unchanged.
type WorktreeSubagentRunner struct {
	inner Runner
	git   WorktreeAdapter
	hooks WorktreeHooks
}

var _ Runner = (*WorktreeSubagentRunner)(nil)

// NewWorktreeSubagentRunner returns the decorator; hooks may be nil.
func NewWorktreeSubagentRunner(inner Runner, git WorktreeAdapter, hooks WorktreeHooks) *WorktreeSubagentRunner {
	return &WorktreeSubagentRunner{inner: inner, git: git, hooks: hooks}
}

// Start prepares the job's worktree, runs the job there (its cwd rewritten to the
// same subdirectory of the worktree), and when the job ends removes a clean worktree
// or keeps one that holds work. The worktree's path and branch are reported to the
// manager (ReportWorktree) while the job runs and, when kept, after it; a removed one
// is reported cleared before the terminal event is passed on. A job whose worktree
// cannot be made ends with one failed event (category "worktree") naming why.
func (w *WorktreeSubagentRunner) Start(ctx context.Context, job runnerapi.Job, emit func(runnerapi.Event) error) error {
	if job.Agent == nil || job.Agent.Isolation != IsolationWorktree {
		return w.inner.Start(ctx, job, emit)
	}
	wt, cwd, err := w.prepare(ctx, job)
	if err != nil {
		return emit(runnerapi.Event{JobID: job.ID, Sequence: 1, Kind: runnerapi.EventFailed, Category: "worktree",
			Error: fmt.Sprintf("worktree isolation: %v", err)})
	}
	origin := wt.Root
	if origin == "" {
		origin = job.Agent.Cwd // a hook's worktree outside git: a copy of the job's cwd
	}
	agent := *job.Agent
	agent.Cwd = cwd
	job.Agent = &agent
	if h, ok := job.Host.(CwdHost); ok {
		// The engine decides the job's tool calls against the directory they run in.
		job.Host = h.InWorktree(cwd, wt.Path, origin)
	}
	ReportWorktree(ctx, wt.Path, wt.Branch)
	ctx = context.WithValue(ctx, worktreeKey{}, [2]string{wt.Path, origin})

	finished := false
	err = w.inner.Start(ctx, job, func(ev runnerapi.Event) error {
		if ev.Kind.Terminal() && !finished {
			finished = true
			w.finish(ctx, job, wt)
		}
		return emit(ev)
	})
	if !finished {
		w.finish(ctx, job, wt)
	}
	return err
}

// prepare makes the job's worktree and returns it with the job's cwd in it.
func (w *WorktreeSubagentRunner) prepare(ctx context.Context, job runnerapi.Job) (Worktree, string, error) {
	cwd := job.Agent.Cwd
	name := worktreeName(job.ID)
	root, rootErr := w.git.Root(ctx, cwd)
	var wt Worktree
	if w.hooks != nil {
		path, err := w.hooks.WorktreeCreate(ctx, WorktreeHookInput{Name: name, Cwd: cwd, JobID: job.ID, AgentType: job.Agent.AgentType})
		if err != nil {
			return Worktree{}, "", fmt.Errorf("WorktreeCreate hook: %w", err)
		}
		if path != "" {
			wt = Worktree{Name: name, Path: path, ByHook: true}
			if rootErr == nil {
				wt.Root = root
			}
		}
	}
	if !wt.ByHook {
		if rootErr != nil {
			return Worktree{}, "", fmt.Errorf("cwd %s: %w", cwd, rootErr)
		}
		var err error
		if wt, err = w.git.Create(ctx, root, name); err != nil {
			return Worktree{}, "", fmt.Errorf("create worktree %s: %w", name, err)
		}
	}
	return wt, filepath.Join(wt.Path, subdir(wt.Root, cwd)), nil
}

// finish removes a clean worktree or keeps one with work, and reports which.
// It runs after the job, with the job's context values but not its cancellation.
func (w *WorktreeSubagentRunner) finish(ctx context.Context, job runnerapi.Job, wt Worktree) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cleanupTimeout)
	defer cancel()
	changed, err := w.git.Changed(ctx, wt)
	if err != nil || changed {
		// Work, or no way to tell: keep it (no lost work) and say where it is.
		ReportWorktree(ctx, wt.Path, wt.Branch)
		return
	}
	if !wt.ByHook {
		if err := w.git.Remove(ctx, wt); err != nil {
			ReportWorktree(ctx, wt.Path, wt.Branch)
			return
		}
	}
	if w.hooks != nil {
		w.hooks.WorktreeRemove(ctx, WorktreeHookInput{Name: wt.Name, WorktreePath: wt.Path, Cwd: wt.Root,
			JobID: job.ID, AgentType: job.Agent.AgentType})
	}
	ReportWorktree(ctx, "", "")
}

// Cancel, Send and ReadLog go to the inner runner.

// Cancel implements Runner.
func (w *WorktreeSubagentRunner) Cancel(ctx context.Context, jobID, reason string) (bool, error) {
	return w.inner.Cancel(ctx, jobID, reason)
}

// Send implements Runner.
func (w *WorktreeSubagentRunner) Send(ctx context.Context, jobID, input string) error {
	return w.inner.Send(ctx, jobID, input)
}

// ReadLog implements Runner.
func (w *WorktreeSubagentRunner) ReadLog(ctx context.Context, jobID string, offset, limit int64) (runnerapi.LogPage, error) {
	return w.inner.ReadLog(ctx, jobID, offset, limit)
}

// worktreeName is "agent-" and the job id, kept to characters safe in a path and a
// branch name.
func worktreeName(jobID string) string {
	var b strings.Builder
	b.WriteString("agent-")
	for _, r := range strings.TrimPrefix(jobID, "agent-") { // agent-agent-… says nothing more
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}

// subdir is cwd relative to root ("" when it is not inside root).
func subdir(root, cwd string) string {
	if root == "" || cwd == "" {
		return ""
	}
	if real, err := filepath.EvalSymlinks(cwd); err == nil {
		cwd = real
	}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		root = real
	}
	rel, err := filepath.Rel(root, cwd)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	return rel
}

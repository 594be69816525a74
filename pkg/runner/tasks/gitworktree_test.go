package tasks

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// gitRepo makes a repository with one commit and a subdirectory; it returns its root.
func gitRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatalf("these tests need git: %v", err)
	}
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "pkg", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "pkg", "x", "main.go"), []byte("package x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitRun(t, root, "init", "-q", "-b", "main")
	gitRun(t, root, "add", ".")
	gitRun(t, root, "commit", "-q", "-m", "init")
	return root
}

func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com",
		"-c", "commit.gpgsign=false"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestGitWorktrees(t *testing.T) {
	ctx := t.Context()
	root := gitRepo(t)
	g := &GitWorktrees{}

	got, err := g.Root(ctx, filepath.Join(root, "pkg", "x"))
	if real, _ := filepath.EvalSymlinks(root); err != nil || got != real {
		t.Fatalf("root = %q, %v; want %q", got, err, real)
	}
	if _, err := g.Root(ctx, t.TempDir()); !errors.Is(err, ErrNotGitRepo) {
		t.Errorf("root outside git: %v", err)
	}

	wt, err := g.Create(ctx, got, "agent-a")
	if err != nil {
		t.Fatal(err)
	}
	if wt.Path != filepath.Join(got, ".robota", "worktrees", "agent-a") || wt.Branch != "worktree-agent-a" || len(wt.Base) != 40 {
		t.Errorf("worktree = %+v", wt)
	}
	if b := gitRun(t, wt.Path, "rev-parse", "--abbrev-ref", "HEAD"); b != "worktree-agent-a" {
		t.Errorf("worktree is on %q", b)
	}
	steps := []struct {
		name    string
		do      func()
		changed bool
	}{
		{"fresh", func() {}, false},
		{"untracked file", func() { _ = os.WriteFile(filepath.Join(wt.Path, "new.txt"), []byte("x"), 0o644) }, true},
		{"committed", func() { gitRun(t, wt.Path, "add", "."); gitRun(t, wt.Path, "commit", "-q", "-m", "work") }, true},
	}
	for _, s := range steps {
		s.do()
		if c, err := g.Changed(ctx, wt); err != nil || c != s.changed {
			t.Errorf("%s: changed = %v, %v; want %v", s.name, c, err, s.changed)
		}
	}

	clean, err := g.Create(ctx, got, "agent-b")
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Remove(ctx, clean); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(clean.Path); !os.IsNotExist(err) {
		t.Errorf("removed worktree still there: %v", err)
	}
	if b := gitRun(t, root, "branch", "--list", clean.Branch); b != "" {
		t.Errorf("branch %s still there", b)
	}

	empty := t.TempDir()
	gitRun(t, empty, "init", "-q")
	if _, err := g.Create(ctx, empty, "agent-c"); err == nil || !strings.Contains(err.Error(), "needs a commit") {
		t.Errorf("create in an empty repository: %v", err)
	}
}

// cwdRunner runs agent jobs by acting on their cwd: "edit" writes a file there,
// anything else only looks. It records each job's cwd.
type cwdRunner struct {
	*fakeRunner
	cwds chan string
}

func (c cwdRunner) Start(ctx context.Context, job runnerapi.Job, emit func(runnerapi.Event) error) error {
	c.cwds <- job.Agent.Cwd
	if _, err := os.Stat(job.Agent.Cwd); err != nil {
		return emit(runnerapi.Event{JobID: job.ID, Sequence: 1, Kind: runnerapi.EventFailed, Error: err.Error()})
	}
	if job.Agent.Prompt == "edit" {
		if err := os.WriteFile(filepath.Join(job.Agent.Cwd, "main.go"), []byte("package x // edited\n"), 0o644); err != nil {
			return err
		}
	}
	return emit(runnerapi.Event{JobID: job.ID, Sequence: 1, Kind: runnerapi.EventCompleted, Output: "done"})
}

func TestWorktreeRunnerWithGit(t *testing.T) {
	root := gitRepo(t)
	real, _ := filepath.EvalSymlinks(root)
	inner := cwdRunner{newFake(fixed()), make(chan string, 4)}
	m := newManager(t, Config{Runner: NewWorktreeSubagentRunner(inner, &GitWorktrees{}, nil)})
	s := NewSubagentManager(m, nil)

	b := s.SpawnBatch([]SubagentRequest{
		{Prompt: "look", Cwd: filepath.Join(root, "pkg", "x"), Isolation: IsolationWorktree},
		{Prompt: "edit", Cwd: filepath.Join(root, "pkg", "x"), Isolation: IsolationWorktree},
		{Prompt: "look", Cwd: t.TempDir(), Isolation: IsolationWorktree},
	})
	res, err := s.WaitBatch(t.Context(), b)
	if err != nil {
		t.Fatal(err)
	}
	look, edit, nogit := res.Results[0], res.Results[1], res.Results[2]

	// The clean worktree is gone, with its branch.
	lookPath := filepath.Join(real, ".robota", "worktrees", "agent-agent_1")
	if look.Status != StateCompleted || look.WorktreePath != "" {
		t.Errorf("look = %+v", look)
	}
	if _, err := os.Stat(lookPath); !os.IsNotExist(err) {
		t.Errorf("clean worktree kept: %v", err)
	}
	// The dirty one is kept and reported; the repository's own checkout is untouched.
	editPath := filepath.Join(real, ".robota", "worktrees", "agent-agent_2")
	if edit.Status != StateCompleted || edit.WorktreePath != editPath || edit.Branch != "worktree-agent-agent_2" {
		t.Errorf("edit = %+v", edit)
	}
	if data, _ := os.ReadFile(filepath.Join(editPath, "pkg", "x", "main.go")); string(data) != "package x // edited\n" {
		t.Errorf("edit in worktree = %q", data)
	}
	if data, _ := os.ReadFile(filepath.Join(root, "pkg", "x", "main.go")); string(data) != "package x\n" {
		t.Errorf("repository checkout changed: %q", data)
	}
	if nogit.Status != StateFailed || !strings.Contains(nogit.Error, "worktree isolation") || !strings.Contains(nogit.Error, "not a git repository") {
		t.Errorf("outside git = %+v", nogit)
	}
	// Both jobs ran in the same subdirectory of their worktree.
	close(inner.cwds)
	var cwds []string
	for c := range inner.cwds {
		cwds = append(cwds, c)
	}
	for _, c := range cwds {
		if !strings.HasSuffix(c, filepath.Join("pkg", "x")) || !strings.Contains(c, filepath.Join(".robota", "worktrees")) {
			t.Errorf("job cwd %q is not pkg/x in a worktree", c)
		}
	}
	if len(cwds) != 2 {
		t.Errorf("jobs started: %q", cwds)
	}
}

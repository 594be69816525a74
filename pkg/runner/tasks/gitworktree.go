package tasks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// GitWorktrees is the WorktreeAdapter over the git CLI. Worktrees go to
// <repo>/.robota/worktrees/<name> on branch worktree-<name> (Claude Code's layout
// under .claude/worktrees, in robota's directory). The zero value is ready to use.
type GitWorktrees struct {
	// Git is the git binary (default "git" on PATH).
	Git string
	// Dir places the worktree named name of the repository root (default
	// root/.robota/worktrees/name).
	Dir func(root, name string) string
	// BranchPrefix prefixes the worktree's branch (default "worktree-").
	BranchPrefix string

	// mu serialises worktree creation and removal, which both edit the repository's
	// worktree list.
	mu sync.Mutex
}

var _ WorktreeAdapter = (*GitWorktrees)(nil)

func (g *GitWorktrees) git(ctx context.Context, dir string, args ...string) (string, error) {
	bin := g.Git
	if bin == "" {
		bin = "git"
	}
	cmd := exec.CommandContext(ctx, bin, append([]string{"-C", dir}, args...)...)
	// A prompt for credentials or an editor would hang a background job.
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_EDITOR=true")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if strings.Contains(msg, "not a git repository") {
			return "", fmt.Errorf("%s: %w", dir, ErrNotGitRepo)
		}
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, msg)
	}
	return strings.TrimSpace(stdout.String()), nil
}

// Root implements WorktreeAdapter.
func (g *GitWorktrees) Root(ctx context.Context, dir string) (string, error) {
	if dir != "" {
		if _, err := os.Stat(dir); err != nil {
			return "", fmt.Errorf("cwd: %w", err)
		}
	}
	return g.git(ctx, dir, "rev-parse", "--show-toplevel")
}

// Create implements WorktreeAdapter.
func (g *GitWorktrees) Create(ctx context.Context, root, name string) (Worktree, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	base, err := g.git(ctx, root, "rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return Worktree{}, fmt.Errorf("the repository needs a commit to branch from: %w", err)
	}
	path := filepath.Join(root, ".robota", "worktrees", name)
	if g.Dir != nil {
		path = g.Dir(root, name)
	}
	prefix := g.BranchPrefix
	if prefix == "" {
		prefix = "worktree-"
	}
	branch := prefix + name
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return Worktree{}, fmt.Errorf("worktree directory: %w", err)
	}
	if _, err := g.git(ctx, root, "worktree", "add", "-b", branch, path, base); err != nil {
		return Worktree{}, err
	}
	return Worktree{Name: name, Path: path, Branch: branch, Root: root, Base: base}, nil
}

// Changed implements WorktreeAdapter.
func (g *GitWorktrees) Changed(ctx context.Context, wt Worktree) (bool, error) {
	status, err := g.git(ctx, wt.Path, "status", "--porcelain", "--untracked-files=all")
	if err != nil {
		return false, err
	}
	if status != "" {
		return true, nil
	}
	if wt.Base == "" {
		return false, nil
	}
	head, err := g.git(ctx, wt.Path, "rev-parse", "HEAD")
	if err != nil {
		return false, err
	}
	return head != wt.Base, nil
}

// Remove implements WorktreeAdapter. It never forces: a worktree that gained work
// since Changed looked fails to remove and is kept.
func (g *GitWorktrees) Remove(ctx context.Context, wt Worktree) error {
	if wt.Root == "" {
		return errors.New("remove worktree: no repository")
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, err := g.git(ctx, wt.Root, "worktree", "remove", wt.Path); err != nil {
		return err
	}
	if wt.Branch != "" {
		if _, err := g.git(ctx, wt.Root, "branch", "-D", wt.Branch); err != nil {
			return err
		}
	}
	return nil
}

package plugins

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// GitURL is the clone URL of a git, url or github source.
func GitURL(s PluginSource) (string, error) {
	switch s.Kind {
	case KindGit, KindURL:
		return s.URL, nil
	case KindGitHub:
		return "https://github.com/" + s.Repo + ".git", nil
	}
	return "", fmt.Errorf("source %s is not a git repository", s.Kind)
}

// Cloner fetches a git repository into a directory that does not exist yet and returns
// the commit checked out.
type Cloner interface {
	Clone(ctx context.Context, url, ref, dir string) (commit string, err error)
}

// GoGit clones with go-git (no git binary needed): a shallow clone of ref (a branch or
// tag; "" is the default branch), written beside dir and renamed into place, so an
// interrupted clone never leaves a half repository where a marketplace is looked for.
type GoGit struct{}

func (GoGit) Clone(ctx context.Context, url, ref, dir string) (string, error) {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", fmt.Errorf("%w: %w", ErrFetch, err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".clone*")
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrFetch, err)
	}
	defer os.RemoveAll(tmp)
	var repo *git.Repository
	if ref == "" {
		repo, err = git.PlainCloneContext(ctx, tmp, false, &git.CloneOptions{URL: url, Depth: 1})
	} else {
		// A ref is a branch or a tag: try them in that order.
		for _, name := range []plumbing.ReferenceName{plumbing.NewBranchReferenceName(ref), plumbing.NewTagReferenceName(ref)} {
			repo, err = git.PlainCloneContext(ctx, tmp, false, &git.CloneOptions{URL: url, ReferenceName: name, SingleBranch: true, Depth: 1})
			if err == nil || !errors.Is(err, plumbing.ErrReferenceNotFound) && !strings.Contains(err.Error(), "couldn't find remote ref") {
				break
			}
			_ = os.RemoveAll(tmp)
			_ = os.MkdirAll(tmp, 0o755)
		}
	}
	if err != nil {
		_ = os.RemoveAll(tmp)
		_ = os.Remove(filepath.Dir(dir)) // only when empty: made for this clone
		return "", fmt.Errorf("%w: git clone %s%s: %w", ErrFetch, redactURL(url), refSuffix(ref), err)
	}
	head, err := repo.Head()
	if err != nil {
		return "", fmt.Errorf("%w: %s: %w", ErrFetch, redactURL(url), err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", fmt.Errorf("%w: %w", ErrFetch, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", fmt.Errorf("%w: %w", ErrFetch, err)
	}
	return head.Hash().String(), nil
}

// redactURL drops a password or token written into a URL's user info.
func redactURL(u string) string {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return u
	}
	if at := strings.LastIndex(strings.SplitN(rest, "/", 2)[0], "@"); at >= 0 {
		return scheme + "://***@" + rest[at+1:]
	}
	return u
}

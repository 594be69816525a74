package plugins

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/robota-sdk/robota-go/pkg/runner/workerproc"
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

// Cloner fetches a git repository into dir (replacing it) and returns the commit checked
// out. Errors are wrapped in ErrFetch by the caller.
type Cloner interface {
	Clone(ctx context.Context, url, ref, dir string) (commit string, err error)
}

// WorkerCloner clones by running `robota-worker git-clone` (package gitclone, go-git), so
// go-git is linked into the worker only. Path is the worker binary; "" finds it beside
// the running executable, then on PATH.
// Timeout bounds one clone (0: DefaultCloneTimeout). The URL reaches the worker on its
// stdin, never in its argv: a token in it would show in every process listing.
type WorkerCloner struct {
	Path    string
	Timeout time.Duration
}

// DefaultCloneTimeout bounds a marketplace or plugin clone.
const DefaultCloneTimeout = 2 * time.Minute

func (w WorkerCloner) Clone(ctx context.Context, url, ref, dir string) (string, error) {
	timeout := w.Timeout
	if timeout <= 0 {
		timeout = DefaultCloneTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	bin := w.Path
	if bin == "" {
		var err error
		if bin, err = workerproc.Find(""); err != nil {
			return "", fmt.Errorf("cloning %s needs robota-worker: %w", redactURL(url), err)
		}
	}
	args := []string{"git-clone"}
	if ref != "" {
		args = append(args, "--ref", ref)
	}
	cmd := exec.CommandContext(ctx, bin, append(args, "--", "-", dir)...)
	cmd.Stdin = strings.NewReader(url + "\n")
	// SIGTERM first: the worker cancels the clone and removes what it wrote.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			msg += fmt.Sprintf(" (the clone took longer than %s)", timeout)
		} else if ctx.Err() != nil {
			msg += " (" + ctx.Err().Error() + ")"
		}
		return "", fmt.Errorf("%s", msg)
	}
	return strings.TrimSpace(stdout.String()), nil
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

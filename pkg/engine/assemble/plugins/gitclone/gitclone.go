// Package gitclone clones the git repositories of plugin marketplaces and plugins with
// go-git (no git binary needed). It is linked into robota-worker only: robota and
// robota-engine run `robota-worker git-clone` (plugins.WorkerCloner), so go-git's
// transports and crypto do not weigh on every run of robota (PERF-NOTES.md: the binary
// is the resident memory).
//
// Guarantees: a clone is written beside its target and renamed into place, so an
// interrupted clone never leaves a half repository where one is looked for; a failed
// one leaves nothing behind (the target's parent too, when the clone made it and it is
// empty). A password or token in a URL is never printed.
package gitclone

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// Clone makes a shallow clone of ref (a branch or a tag; "" is the default branch) of
// url into dir, which it replaces, and returns the commit checked out.
func Clone(ctx context.Context, url, ref, dir string) (string, error) {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".clone*")
	if err != nil {
		return "", err
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
		return "", fmt.Errorf("git clone %s%s: %w", RedactURL(url), refSuffix(ref), err)
	}
	head, err := repo.Head()
	if err != nil {
		return "", fmt.Errorf("%s: %w", RedactURL(url), err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", err
	}
	return head.Hash().String(), nil
}

func refSuffix(ref string) string {
	if ref == "" {
		return ""
	}
	return "#" + ref
}

// RedactURL drops a password or token written into a URL's user info.
func RedactURL(u string) string {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return u
	}
	if at := strings.LastIndex(strings.SplitN(rest, "/", 2)[0], "@"); at >= 0 {
		return scheme + "://***@" + rest[at+1:]
	}
	return u
}

// Command is the worker subcommand's name: robota-worker git-clone [--ref REF] URL DIR,
// URL "-" reading the URL from stdin.
const Command = "git-clone"

// Main runs the subcommand: it prints the commit on stdout, or the error on stderr and
// exits 1 (2 for a usage mistake). SIGTERM and SIGINT cancel the clone, which then
// leaves nothing behind.
func Main(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(Command, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	ref := fs.String("ref", "", "branch or tag")
	if err := fs.Parse(args); err != nil || fs.NArg() != 2 {
		fmt.Fprintf(stderr, "usage: robota-worker %s [--ref REF] URL DIR\n", Command)
		return 2
	}
	url := fs.Arg(0)
	if url == "-" {
		// The URL comes on stdin (robota passes it so: never in argv, where a token in it
		// would show in every process listing).
		line, err := bufio.NewReader(os.Stdin).ReadString('\n')
		if url = strings.TrimSpace(line); url == "" {
			fmt.Fprintf(stderr, "robota-worker %s: no URL on stdin (%v)\n", Command, err)
			return 2
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	commit, err := Clone(ctx, url, *ref, fs.Arg(1))
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	fmt.Fprintln(stdout, commit)
	return 0
}

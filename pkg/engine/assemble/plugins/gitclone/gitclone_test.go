package gitclone

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// repo makes a repository with main holding a.txt="main", a tag v1 on it, and a branch
// dev holding a.txt="dev".
func repo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	r, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, _ := r.Worktree()
	sig := &object.Signature{Name: "t", Email: "t@example.com", When: time.Unix(1_700_000_000, 0)}
	commit := func(content string) plumbing.Hash {
		if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := wt.Add("a.txt"); err != nil {
			t.Fatal(err)
		}
		h, err := wt.Commit(content, &git.CommitOptions{Author: sig, Committer: sig})
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	main := commit("main")
	if _, err := r.CreateTag("v1", main, nil); err != nil {
		t.Fatal(err)
	}
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName("dev"), Create: true}); err != nil {
		t.Fatal(err)
	}
	commit("dev")
	if err := wt.Checkout(&git.CheckoutOptions{Branch: plumbing.NewBranchReferenceName("master")}); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestCloneRefs(t *testing.T) {
	src := repo(t)
	for _, tt := range []struct{ ref, want string }{{"", "main"}, {"dev", "dev"}, {"v1", "main"}} {
		dir := filepath.Join(t.TempDir(), "x", "clone")
		commit, err := Clone(context.Background(), "file://"+src, tt.ref, dir)
		if err != nil {
			t.Fatalf("ref %q: %v", tt.ref, err)
		}
		got, _ := os.ReadFile(filepath.Join(dir, "a.txt"))
		if string(got) != tt.want || len(commit) != 40 {
			t.Errorf("ref %q: a.txt %q commit %q", tt.ref, got, commit)
		}
		entries, _ := os.ReadDir(filepath.Dir(dir))
		if len(entries) != 1 {
			t.Errorf("ref %q: leftovers beside the clone: %v", tt.ref, entries)
		}
	}
}

func TestFailedCloneLeavesNothing(t *testing.T) {
	parent := filepath.Join(t.TempDir(), "cache", "p")
	_, err := Clone(context.Background(), "https://user:secret@127.0.0.1:1/none.git", "", filepath.Join(parent, "v"))
	if err == nil || strings.Contains(err.Error(), "secret") || !strings.Contains(err.Error(), "https://***@127.0.0.1:1/none.git") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(parent); !os.IsNotExist(err) {
		t.Errorf("%s left behind: %v", parent, err)
	}
	src := repo(t)
	if _, err := Clone(context.Background(), src, "no-such-ref", filepath.Join(parent, "v")); err == nil {
		t.Error("an unknown ref must fail")
	}
}

func TestGitCloneSubcommand(t *testing.T) {
	src := repo(t)
	dir := filepath.Join(t.TempDir(), "c")
	var out, errOut bytes.Buffer
	if code := Main([]string{"--ref", "dev", "--", src, dir}, &out, &errOut); code != 0 || len(strings.TrimSpace(out.String())) != 40 {
		t.Fatalf("exit %d out %q err %q", code, out.String(), errOut.String())
	}
	if code := Main([]string{"only-one"}, &out, &errOut); code != 2 {
		t.Errorf("usage mistake: exit %d", code)
	}
	errOut.Reset()
	if code := Main([]string{filepath.Join(src, "missing"), dir + "2"}, &out, &errOut); code != 1 || errOut.Len() == 0 {
		t.Errorf("failed clone: exit %d, stderr %q", code, errOut.String())
	}
}

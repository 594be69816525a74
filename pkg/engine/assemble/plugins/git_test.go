package plugins

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// gitRepo makes a repository holding files (path → content), committed on the default
// branch, and returns its directory.
func gitRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	for p, data := range files {
		write(t, filepath.Join(dir, p), data)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.AddGlob("."); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "test", Email: "test@example.com", When: time.Unix(1_700_000_000, 0)}
	if _, err := wt.Commit("fixture", &git.CommitOptions{Author: sig, Committer: sig}); err != nil {
		t.Fatal(err)
	}
	return dir
}

// pluginFiles is a small plugin, at prefix inside a repository.
func pluginFiles(prefix, name string) map[string]string {
	return map[string]string{
		prefix + ".claude-plugin/plugin.json": `{"name": "` + name + `", "version": "0.1.0"}`,
		prefix + "commands/hi.md":             "---\ndescription: say hi\n---\nHi $ARGUMENTS\n",
	}
}

func TestGitMarketplaceIsClonedIntoTheUserStore(t *testing.T) {
	files := pluginFiles("plugins/tool/", "tool")
	files[".claude-plugin/marketplace.json"] = `{"name": "gitmkt", "owner": {"name": "o"}, "plugins": [{"name": "tool", "source": "./plugins/tool"}]}`
	repo := gitRepo(t, files)
	for _, url := range []string{repo, "file://" + repo} {
		t.Run(url[:4], func(t *testing.T) {
			home := t.TempDir()
			opts := Options{Cwd: t.TempDir(), Home: home, Cloner: inProcess{}, Enabled: map[string]bool{"tool@gitmkt": true},
				Declared: map[string]DeclaredMarketplace{"gitmkt": {Source: MarketplaceSource{Kind: KindGit, URL: url}}}}

			res := Load(context.Background(), opts)
			if len(res.Plugins) != 0 || len(res.Problems) != 1 || !errors.Is(res.Problems[0], ErrNotFound) ||
				!strings.Contains(res.Problems[0].Error(), "not fetched yet") {
				t.Fatalf("without Fetch nothing is cloned: %+v", res)
			}

			opts.Fetch = true
			res = Load(context.Background(), opts)
			if len(res.Plugins) != 1 {
				t.Fatalf("not loaded: %v", res.Problems)
			}
			clone := filepath.Join(home, ".robota", "plugins", "marketplaces", "gitmkt")
			if want, _ := filepath.EvalSymlinks(filepath.Join(clone, "plugins", "tool")); res.Plugins[0].Root != want {
				t.Errorf("root = %s, want %s", res.Plugins[0].Root, want)
			}
			// The clone is reused: a later session needs no fetch.
			opts.Fetch = false
			if res := Load(context.Background(), opts); len(res.Plugins) != 1 {
				t.Fatalf("cached clone not used: %v", res.Problems)
			}
		})
	}
}

func TestGitPluginSourceIsClonedIntoTheCache(t *testing.T) {
	pluginRepo := gitRepo(t, pluginFiles("", "remote-tool"))
	market := t.TempDir()
	write(t, filepath.Join(market, MarketplacePath), `{"name": "m", "owner": {"name": "o"}, "plugins": [
		{"name": "remote-tool", "version": "0.1.0", "source": {"source": "url", "url": "`+pluginRepo+`"}},
		{"name": "gone", "source": {"source": "git", "url": "`+filepath.Join(market, "no-such-repo")+`"}}]}`)
	home := t.TempDir()
	res := Load(context.Background(), Options{Cwd: t.TempDir(), Home: home, Fetch: true, Cloner: inProcess{},
		Enabled:  map[string]bool{"remote-tool@m": true, "gone@m": true},
		Declared: map[string]DeclaredMarketplace{"m": {Source: MarketplaceSource{Kind: KindDirectory, Path: market}}}})
	if len(res.Plugins) != 1 || res.Plugins[0].Name != "remote-tool" {
		t.Fatalf("plugins = %+v, problems %v", res.Plugins, res.Problems)
	}
	if want := filepath.Join(home, ".robota", "plugins", "cache", "m", "remote-tool", "0.1.0"); !strings.HasPrefix(res.Plugins[0].Root, want) {
		t.Errorf("root = %s, want below %s", res.Plugins[0].Root, want)
	}
	if len(res.Problems) != 1 || res.Problems[0].Plugin != "gone@m" || !errors.Is(res.Problems[0], ErrFetch) || !res.Problems[0].Skipped {
		t.Fatalf("problems = %v", res.Problems)
	}
	if entries, _ := os.ReadDir(filepath.Join(home, ".robota", "plugins", "cache", "m")); len(entries) != 1 {
		t.Errorf("a failed clone must leave nothing behind: %v", entries)
	}
}

func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://user:tok@github.com/a/b.git": "https://***@github.com/a/b.git",
		"https://github.com/a/b.git":          "https://github.com/a/b.git",
		"/srv/repo":                           "/srv/repo",
	} {
		if got := redactURL(in); got != want {
			t.Errorf("redactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// WorkerCloner runs `robota-worker git-clone [--ref REF] -- URL DIR`, reads the commit
// from stdout and reports the worker's stderr as the error; a worker that is not found
// says how to install it.
func TestWorkerCloner(t *testing.T) {
	dir := t.TempDir()
	args := filepath.Join(dir, "args")
	fake := filepath.Join(dir, "robota-worker")
	stdin := filepath.Join(dir, "stdin")
	write(t, fake, "#!/bin/sh\necho \"$@\" > "+args+"\ncat > "+stdin+"\ncase \"$*\" in *fail*) echo 'git clone x: boom' >&2; exit 1;; esac\n"+
		"case \"$*\" in *slow*) exec sleep 5;; esac\necho 0123456789abcdef0123456789abcdef01234567\n")
	if err := os.Chmod(fake, 0o755); err != nil {
		t.Fatal(err)
	}
	// The URL (a token in it) goes on stdin, never in argv.
	commit, err := WorkerCloner{Path: fake}.Clone(context.Background(), "https://user:tok@h/r.git", "v1", "/tmp/target")
	got, _ := os.ReadFile(args)
	in, _ := os.ReadFile(stdin)
	if err != nil || commit != "0123456789abcdef0123456789abcdef01234567" || strings.TrimSpace(string(got)) != "git-clone --ref v1 -- - /tmp/target" ||
		string(in) != "https://user:tok@h/r.git\n" {
		t.Fatalf("commit %q err %v args %q stdin %q", commit, err, got, in)
	}
	// A clone has a time limit.
	if _, err := (WorkerCloner{Path: fake, Timeout: 200 * time.Millisecond}).Clone(context.Background(), "u", "", "/tmp/slow"); err == nil ||
		!strings.Contains(err.Error(), "took longer than 200ms") {
		t.Fatalf("slow clone: err = %v", err)
	}
	if _, err := (WorkerCloner{Path: fake}).Clone(context.Background(), "u", "", "/tmp/fail"); err == nil || err.Error() != "git clone x: boom" {
		t.Fatalf("err = %v", err)
	}
	t.Setenv("PATH", dir+"/none")
	if _, err := (WorkerCloner{}).Clone(context.Background(), "u", "", "/tmp/x"); err == nil || !strings.Contains(err.Error(), "needs robota-worker") {
		t.Fatalf("err = %v", err)
	}
}

// Claude Code's official marketplace is known without being added: an enabled plugin
// from it asks for github.com/anthropics/claude-plugins-official (not fetched here).
func TestOfficialMarketplaceIsKnown(t *testing.T) {
	var asked []string
	res := Load(context.Background(), Options{Cwd: t.TempDir(), Home: t.TempDir(), Fetch: true,
		Enabled: map[string]bool{"x@claude-plugins-official": true},
		Cloner:  clonerFunc(func(url string) error { asked = append(asked, url); return errors.New("offline") })})
	if len(asked) != 1 || asked[0] != "https://github.com/anthropics/claude-plugins-official.git" {
		t.Fatalf("asked %v", asked)
	}
	if len(res.Problems) != 1 || !errors.Is(res.Problems[0], ErrFetch) || res.Problems[0].Plugin != "x@claude-plugins-official" {
		t.Fatalf("problems %v", res.Problems)
	}
}

type clonerFunc func(url string) error

func (f clonerFunc) Clone(_ context.Context, url, _, _ string) (string, error) { return "", f(url) }

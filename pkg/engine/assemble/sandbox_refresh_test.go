package assemble

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/permission"
	"github.com/robota-sdk/robota-go/pkg/sandbox"
)

// A command that changes what the policy covers gets the next command a new server; a
// command still running in the old one (a background command) finishes there, and the
// old server closes when it ends.
func TestSandboxServerFollowsThePolicy(t *testing.T) {
	if ok, why := sandbox.Available(); !ok {
		t.Skipf("no sandbox here: %s", why)
	}
	dir := t.TempDir()
	secret, later := filepath.Join(dir, "secret.txt"), filepath.Join(dir, "later.txt")
	for _, f := range []string{secret, later} {
		if err := os.WriteFile(f, []byte("MARK\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var walks atomic.Int32
	c := newCommandSandbox(sandboxSettings{}, permission.New(permission.Config{ProjectRoot: dir}), "default", []string{dir}, "")
	c.walkPolicy = func() sandbox.Policy {
		if walks.Add(1) == 1 {
			return sandbox.Policy{Hide: []string{secret}}
		}
		return sandbox.Policy{Hide: []string{secret, later}} // the first command made later.txt
	}
	t.Cleanup(c.close)

	run := func(command string) (*sandboxedProc, *os.File) {
		t.Helper()
		out, err := os.CreateTemp(t.TempDir(), "out")
		if err != nil {
			t.Fatal(err)
		}
		proc, err := c.spawn("/bin/sh", []string{"/bin/sh", "-c", command}, dir, nil, command, out)
		if err != nil {
			t.Fatal(err)
		}
		return proc.(*sandboxedProc), out
	}
	readOut := func(f *os.File) string {
		b, err := os.ReadFile(f.Name())
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	background, bgOut := run("sleep 0.5; cat later.txt")
	first, _ := run("true")
	if _, err := first.Wait(); err != nil {
		t.Fatal(err)
	}
	second, out := run("cat secret.txt later.txt")
	if ws, err := second.Wait(); err != nil || ws.ExitStatus() != 0 {
		t.Fatalf("second: %v %v", ws, err)
	}
	if got := readOut(out); got != "" {
		t.Errorf("the second command, under the new policy, read %q", got)
	}
	if first.srv == second.srv {
		t.Fatal("a changed policy kept the old server")
	}
	// The background command runs on in the first server, under the first policy.
	if ws, err := background.Wait(); err != nil || ws.ExitStatus() != 0 {
		t.Fatalf("background: %v %v", ws, err)
	}
	if got := readOut(bgOut); got != "MARK\n" {
		t.Errorf("the background command's output %q", got)
	}
	if _, err := first.srv.Start("/bin/sh", []string{"/bin/sh", "-c", "true"}, dir, nil, nil, nil); !errors.Is(err, sandbox.ErrServerClosed) {
		t.Errorf("the old server is still open after its last command: %v", err)
	}
	if _, err := second.srv.Start("/bin/sh", []string{"/bin/sh", "-c", "true"}, dir, nil, nil, nil); errors.Is(err, sandbox.ErrServerClosed) {
		t.Errorf("the current server was closed")
	}
}

// What subagents' Grep and Glob leave out is walked for each job: a denied file that
// appeared after the first job is left out of the next.
func TestJobSearchExcludeSeesFilesMadeLater(t *testing.T) {
	dir := t.TempDir()
	rules, err := permission.Rules(permission.Layer{Deny: []string{"Read(./secret.txt)"}})
	if err != nil {
		t.Fatal(err)
	}
	ev := permission.New(permission.Config{ProjectRoot: dir, Home: t.TempDir(), Rules: rules})
	exclude := jobSearchExclude(ev, []string{dir}).Exclude
	if got := exclude(); len(got) != 0 {
		t.Fatalf("before the file exists: %q", got)
	}
	if err := os.WriteFile(filepath.Join(dir, "secret.txt"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := exclude(); len(got) != 1 || got[0] != filepath.Join(dir, "secret.txt") {
		t.Fatalf("after the file appeared: %q", got)
	}
}

// BenchmarkSessionSandboxCommand is the session's Bash path back to back, the worst case
// for the walk made after each command (no model time hides it): `bash -c true` bare and
// through commandSandbox.spawn on a small project with a deny rule, in one run.
func BenchmarkSessionSandboxCommand(b *testing.B) {
	if ok, why := sandbox.Available(); !ok {
		b.Skip(why)
	}
	dir := b.TempDir()
	writeGoFiles(b, dir, 50, 5)
	rules, err := permission.Rules(permission.Layer{Deny: []string{"Read(./secret.txt)", "Edit(./.git/**)"}})
	if err != nil {
		b.Fatal(err)
	}
	ev := permission.New(permission.Config{ProjectRoot: dir, Home: b.TempDir(), Rules: rules})
	devNull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer devNull.Close()
	b.Run("bare", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("/bin/bash", "-c", "true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("session", func(b *testing.B) {
		c := newCommandSandbox(sandboxSettings{}, ev, "default", []string{dir}, "")
		defer c.close()
		for b.Loop() {
			proc, err := c.spawn("/bin/bash", []string{"bash", "-c", "true"}, dir, nil, "true", devNull)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := proc.Wait(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// A job's command that ends asks for a new walk, and the next command's policy waits for
// it: a denied file the job brought in is hidden from the job's next command (issue 27).
// Before any job command ended, the session's cached walk holds.
func TestJobPolicyIsWalkedAgainAfterAJobCommand(t *testing.T) {
	dir := t.TempDir()
	rules, err := permission.Rules(permission.Layer{Deny: []string{"Read(./secret.txt)"}})
	if err != nil {
		t.Fatal(err)
	}
	ev := permission.New(permission.Config{ProjectRoot: dir, Home: t.TempDir(), Rules: rules})
	c := newCommandSandbox(sandboxSettings{}, ev, "default", []string{dir}, "")
	t.Cleanup(c.close)
	jobs := jobPolicy{c}
	secret := filepath.Join(dir, "secret.txt")
	if sb := jobs.Policy(); slices.Contains(sb.Hide, secret) {
		t.Fatalf("hidden before it exists: %q", sb.Hide)
	}
	// A job's command brings the file in.
	if err := os.WriteFile(secret, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if sb := jobs.Policy(); slices.Contains(sb.Hide, secret) {
		t.Fatalf("walked again with no command ended: %q", sb.Hide)
	}
	jobs.CommandEnded()
	if sb := jobs.Policy(); !slices.Contains(sb.Hide, secret) {
		t.Fatalf("after the job's command ended the next policy hides %q, want %s", sb.Hide, secret)
	}
}

// BenchmarkJobPolicy is what the engine adds to each of a subagent's Bash calls before
// the execute step: the cached walk's policy as a job's (the protected paths appended),
// no command having ended since.
func BenchmarkJobPolicy(b *testing.B) {
	dir := b.TempDir()
	rules, err := permission.Rules(permission.Layer{Deny: []string{"Read(./secret.txt)"}})
	if err != nil {
		b.Fatal(err)
	}
	ev := permission.New(permission.Config{ProjectRoot: dir, Home: b.TempDir(), Rules: rules})
	c := newCommandSandbox(sandboxSettings{}, ev, "default", []string{dir}, b.TempDir())
	b.Cleanup(c.close)
	jobs := jobPolicy{c}
	jobs.Policy() // the first walk
	for b.Loop() {
		if jobs.Policy() == nil {
			b.Fatal("no policy")
		}
	}
}

// worktreeDenyCases are deny rules and what a worktree job makes under them: whether a
// walk of its worktree must cover it.
var worktreeDenyCases = []struct {
	name, rule, made string
	covered          bool
}{
	{"project-relative rule", "Read(./secret.txt)", "secret.txt", true},
	{"any-depth rule, nested", "Read(**/.env)", "sub/.env", true},
	{"directory rule", "Read(./keys/**)", "keys", true},
	{"not denied", "Read(./secret.txt)", "other.txt", false},
}

// worktreeOf makes a project with a job's worktree in it and the session's evaluator of
// rule; it returns the project, the worktree and the evaluator.
func worktreeOf(t *testing.T, rule string) (origin, wt string, ev *permission.Evaluator) {
	t.Helper()
	origin = t.TempDir()
	wt = filepath.Join(origin, ".robota", "worktrees", "agent-1")
	if err := os.MkdirAll(wt, 0o755); err != nil {
		t.Fatal(err)
	}
	rules, err := permission.Rules(permission.Layer{Deny: []string{rule}})
	if err != nil {
		t.Fatal(err)
	}
	return origin, wt, permission.New(permission.Config{ProjectRoot: origin, Home: t.TempDir(), Rules: rules})
}

// makeAsTheJob makes path as a job's command would: "keys" is a directory with an entry,
// anything else a file.
func makeAsTheJob(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	var err error
	if filepath.Base(path) == "keys" {
		err = os.MkdirAll(filepath.Join(path, "k"), 0o755)
	} else {
		err = os.WriteFile(path, []byte("MARK"), 0o600)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// A worktree job's policy walks its worktree too, asking the rules about each entry's
// counterpart in the project: a denied file one of its commands makes in the worktree,
// which the project does not have (so the project's walk mirrored into the worktree
// does not list it), is hidden from its next command (issue 27).
func TestJobPolicyInWorktreeHidesADeniedFileMadeThere(t *testing.T) {
	for _, tc := range worktreeDenyCases {
		t.Run(tc.name, func(t *testing.T) {
			origin, wt, ev := worktreeOf(t, tc.rule)
			c := newCommandSandbox(sandboxSettings{}, ev, "default", []string{origin}, "")
			t.Cleanup(c.close)
			jobs := jobPolicy{c}.InWorktree(wt, origin)
			made := filepath.Join(wt, tc.made)
			if sb := jobs.Policy(); slices.Contains(sb.Hide, made) {
				t.Fatalf("hidden before it exists: %q", sb.Hide)
			}
			makeAsTheJob(t, made)
			jobs.CommandEnded()
			if sb := jobs.Policy(); slices.Contains(sb.Hide, made) != tc.covered {
				t.Fatalf("after the job's command the policy hides %q; %s hidden: %v, want %v", sb.Hide, made, !tc.covered, tc.covered)
			}
		})
	}
}

// What a worktree job's Grep and Glob leave out is walked in its worktree too, as each
// search runs: a denied file the job made there, which the project does not have, is
// found by the next walk, with the sandbox off as on (the walk is the search's own).
func TestJobSearchInWorktreeFindsADeniedFileMadeThere(t *testing.T) {
	for _, tc := range worktreeDenyCases {
		t.Run(tc.name, func(t *testing.T) {
			origin, wt, ev := worktreeOf(t, tc.rule)
			search := jobSearchExclude(ev, []string{origin}).InWorktree(wt, origin)
			made := filepath.Join(wt, tc.made)
			if got := search.Exclude(); slices.Contains(got, made) {
				t.Fatalf("left out before it exists: %q", got)
			}
			makeAsTheJob(t, made)
			if got := search.Exclude(); slices.Contains(got, made) != tc.covered {
				t.Fatalf("after the job made %s the search leaves out %q; want it left out: %v", made, got, tc.covered)
			}
		})
	}
}

// BenchmarkJobSearchWalk is what a subagent's Grep or Glob call now costs the engine
// before it runs: the walk for what a Read deny rule covers (jobSearchExclude), on a
// project of 2,000 files in 100 directories, beside a bare filepath.WalkDir of the same
// tree in the same run. Reported: walk-us, bare-walk-us and x-of-bare.
func BenchmarkJobSearchWalk(b *testing.B) {
	dir := b.TempDir()
	writeGoFiles(b, dir, 2000, 100)
	rules, err := permission.Rules(permission.Layer{Deny: []string{"Read(./secret.txt)", "Read(**/.env)"}})
	if err != nil {
		b.Fatal(err)
	}
	search := jobSearchExclude(permission.New(permission.Config{ProjectRoot: dir, Home: b.TempDir(), Rules: rules}), []string{dir})
	var walk, bare time.Duration
	for b.Loop() {
		t0 := time.Now()
		_ = search.Exclude()
		t1 := time.Now()
		n := 0
		_ = filepath.WalkDir(dir, func(string, fs.DirEntry, error) error { n++; return nil })
		walk, bare = walk+t1.Sub(t0), bare+time.Since(t1)
	}
	b.ReportMetric(float64(walk.Microseconds())/float64(b.N), "walk-us")
	b.ReportMetric(float64(bare.Microseconds())/float64(b.N), "bare-walk-us")
	b.ReportMetric(float64(walk)/float64(bare), "x-of-bare")
}

// writeGoFiles makes files small Go files under dir/pkg, spread over dirs directories: a
// project for the walks to cover.
func writeGoFiles(b *testing.B, dir string, files, dirs int) {
	b.Helper()
	for i := range files {
		sub := filepath.Join(dir, "pkg", strconv.Itoa(i%dirs))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sub, strconv.Itoa(i)+".go"), []byte("package p\n"), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

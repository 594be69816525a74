package integration

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestHeadlessSessionOutsideAProject (DESIGN decision 3): robota -p started in the
// temporary directory (TMPDIR) stores its session under ~/.robota, creates no .robota
// there, and --continue and --resume from that directory find it, even after a newer
// session of the home directory (which shares the user's store).
func TestHeadlessSessionOutsideAProject(t *testing.T) {
	p := newProject(t)
	tmp := p.Dir // the run's cwd, and what os.TempDir reports to robota
	script := p.writeScript(t, "outside.yaml", `turns:
  - when: {lastUserContains: "again"}
    text: "continued"
    repeat: true
  - text: "ok"
    repeat: true
`)
	run := func(dir string, args ...string) map[string]any {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
		defer cancel()
		cmd := p.command(ctx, append(args, "--provider", "script", "--script", script, "--output-format", "json")...)
		cmd.Dir = dir
		cmd.Env = append(cmd.Env, "TMPDIR="+tmp)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("robota %q in %s: %v\nstdout:\n%s\nstderr:\n%s", args, dir, err, stdout.String(), stderr.String())
		}
		return resultObject(t, stdout.String())
	}
	first := run(tmp, "-p", "hello")
	id, _ := first["session_id"].(string)
	if id == "" {
		t.Fatalf("no session_id: %v", first)
	}
	userStore := filepath.Join(p.Home, ".robota")
	for _, path := range []string{filepath.Join(userStore, "sessions", id+".jsonl"), filepath.Join(userStore, "logs", id+".jsonl")} {
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("the session is not in the user's directory: %v", err)
		}
	}
	if _, err := os.Lstat(filepath.Join(tmp, ".robota")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("robota created a .robota in the temporary directory %s (%v)", tmp, err)
	}
	home := run(p.Home, "-p", "hello")
	if home["session_id"] == id {
		t.Fatal("the home run reused the temporary directory's session")
	}
	cont := run(tmp, "-p", "again", "--continue")
	wantSession(t, "--continue in the temporary directory", cont, id)
	wantResult(t, "--continue", cont, "continued")
	resumed := run(tmp, "-p", "again", "--resume", id)
	wantSession(t, "--resume in the temporary directory", resumed, id)
	if _, err := os.Lstat(filepath.Join(tmp, ".robota")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("a later run created a .robota in %s (%v)", tmp, err)
	}
}

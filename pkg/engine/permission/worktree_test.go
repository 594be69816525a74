package permission

import (
	"os"
	"path/filepath"
	"testing"
)

// A worktree job's evaluator (InWorktree): the worktree, below the project's .robota,
// is the job's project, writable as the mode allows but for its own protected paths;
// the main checkout is outside it; deny rules hold for both copies of a file, however
// they are anchored (the project root of their settings, the cwd).
func TestInWorktree(t *testing.T) {
	e := newEnv(t)
	wt := filepath.Join(e.project, ".robota", "worktrees", "agent-1")
	for _, d := range []string{wt + "/.git", wt + "/src", e.project + "/.git"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"secret.txt", "cfg.env", "locked.txt", "src/a.go"} {
		for _, dir := range []string{e.project, wt} {
			if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	rules, err := Rules(
		Layer{Source: Source{Name: "projectSettings", Root: e.project},
			Allow: []string{"Bash"}, Deny: []string{"Read(/secret.txt)", "Edit(/locked.txt)", "Read(./cfg.env)"}},
		Layer{Source: Source{Name: "cliArg"}, Deny: []string{"Read(/src/a.go)"}})
	if err != nil {
		t.Fatal(err)
	}
	session := New(Config{Mode: ModeAcceptEdits, Rules: rules, ProjectRoot: e.project, Home: e.home})
	job := session.InWorktree(wt, e.project)
	cases := []struct {
		name string
		req  Request
		want Behavior
	}{
		{"write in the worktree", Request{Tool: "Write", Input: input(t, "file_path", wt+"/out.txt")}, Allow},
		{"relative write in the worktree", Request{Tool: "Write", Input: input(t, "file_path", "src/new.go")}, Allow},
		{"the worktree's own .git", Request{Tool: "Write", Input: input(t, "file_path", wt+"/.git/hooks/pre-commit")}, Ask},
		{"the worktree's own .robota", Request{Tool: "Edit", Input: input(t, "file_path", wt+"/.robota/settings.json")}, Ask},
		{"write into the main checkout", Request{Tool: "Write", Input: input(t, "file_path", e.project+"/out.txt")}, Ask},
		{"the main checkout's .claude", Request{Tool: "Write", Input: input(t, "file_path", e.project+"/.claude/settings.json")}, Ask},
		{"read the worktree's copy of a root-anchored denied file", Request{Tool: "Read", Input: input(t, "file_path", "secret.txt")}, Deny},
		{"read the project's copy", Request{Tool: "Read", Input: input(t, "file_path", e.project+"/secret.txt")}, Deny},
		{"read the project's copy of a cwd-anchored denied file", Request{Tool: "Read", Input: input(t, "file_path", e.project+"/cfg.env")}, Deny},
		{"read the worktree's copy under a rule anchored at the project root", Request{Tool: "Grep", Input: input(t, "pattern", "x", "path", wt+"/src/a.go")}, Deny},
		{"edit the worktree's copy of an Edit-denied file", Request{Tool: "Edit", Input: input(t, "file_path", wt+"/locked.txt")}, Deny},
		{"edit the project's copy", Request{Tool: "Write", Input: input(t, "file_path", e.project+"/locked.txt")}, Deny},
		{"Bash reads the worktree's copy", bashReq(t, "cat secret.txt"), Deny},
		{"Bash writes the worktree's copy", bashReq(t, "echo x > locked.txt"), Deny},
		{"Bash writes in the worktree", bashReq(t, "echo x > out.txt"), Allow},
		{"Bash writes into the main checkout", bashReq(t, "echo x > "+e.project+"/escape.txt"), Ask},
		{"Bash copies into the main checkout", bashReq(t, "cp out.txt "+e.project+"/.git/hooks/pre-commit"), Ask},
		{"a read in the worktree", Request{Tool: "Read", Input: input(t, "file_path", wt+"/src/b.go")}, Allow},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := tc.req
			req.Cwd = wt
			if d := job.Evaluate(req); d.Behavior != tc.want {
				t.Errorf("got %s (%s), want %s", d.Behavior, d.Reason, tc.want)
			}
		})
	}
	// The session itself: the worktree is below its .robota, protected; its deny rules
	// do not reach into the worktree's copies by name (it has no copy).
	if d := session.Evaluate(Request{Tool: "Write", Input: input(t, "file_path", wt+"/out.txt")}); d.Behavior != Ask {
		t.Errorf("the session writes into a worktree below .robota: %s (%s), want ask", d.Behavior, d.Reason)
	}
	// The search tools' per-file filter and the sandbox see both copies too.
	if _, denied := job.DeniedPath("Read", wt+"/secret.txt", wt); !denied {
		t.Error("DeniedPath: the worktree's copy of a denied file is not denied")
	}
	if !job.SandboxDenies("Read", wt+"/secret.txt") {
		t.Error("SandboxDenies: the worktree's copy of a denied file is not hidden")
	}
	if _, denied := job.DeniedPath("Read", wt+"/src/b.go", wt); denied {
		t.Error("DeniedPath: a file no rule names is denied")
	}
}

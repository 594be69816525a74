package permission

import "testing"

// Without the command sandbox, a command whose file access the table cannot fully know
// asks while a file deny rule is in force (every mode: dontAsk then denies); known
// commands are decided as before, and without file deny rules nothing changes.
func TestNoSandboxFallbackAsks(t *testing.T) {
	e := newEnv(t)
	rules := []Layer{allow("Bash"), deny("Read(./secret.txt)", "Edit(./.git/**)")}
	build := func(mode Mode, noSandbox bool, layers ...Layer) *Evaluator {
		r, err := Rules(layers...)
		if err != nil {
			t.Fatal(err)
		}
		return New(Config{Mode: mode, Rules: r, ProjectRoot: e.project, Home: e.home, NoSandbox: noSandbox})
	}
	opaque := []string{
		`python3 -c 'print(open("secret.txt").read())'`, `node -e 'require("fs").readFileSync("secret.txt")'`,
		`perl -e 'print 1'`, `ruby -e 'puts 1'`, `php -r 'echo 1;'`, "echo Y2F0 | base64 -d | sh",
		`bash -c "$(echo cat secret.txt)"`, `eval "$CMD"`, "git log -p", "git grep MARK", "git archive HEAD",
		"git fast-export --all", "git format-patch -1", "git init --template=/tmp/t", "./build.sh", "make",
	}
	for _, cmd := range opaque {
		req := bashReq(t, cmd)
		req.Cwd = e.project
		if d := build(ModeBypassPermissions, true, rules...).Evaluate(req); d.Behavior != Ask {
			t.Errorf("no sandbox, %q: %s (%s), want ask", cmd, d.Behavior, d.Reason)
		}
		if d := build(ModeDontAsk, true, rules...).Evaluate(req); d.Behavior != Deny {
			t.Errorf("no sandbox, dontAsk, %q: %s, want deny", cmd, d.Behavior)
		}
		if d := build(ModeBypassPermissions, false, rules...).Evaluate(req); d.Behavior != Allow {
			t.Errorf("sandboxed, %q: %s (%s), want allow (the sandbox holds the rules)", cmd, d.Behavior, d.Reason)
		}
		if d := build(ModeBypassPermissions, true, allow("Bash"), deny("Read", "Edit")).Evaluate(req); d.Behavior != Allow {
			t.Errorf("no sandbox, tool-wide rules only, %q: %s (%s), want allow", cmd, d.Behavior, d.Reason)
		}
	}
	for _, cmd := range []string{"ls -la", "cat notes.txt", "git status", "git add a.go", "echo hi > out.txt", "wc -l a.txt"} {
		req := bashReq(t, cmd)
		req.Cwd = e.project
		if d := build(ModeBypassPermissions, true, rules...).Evaluate(req); d.Behavior != Allow {
			t.Errorf("no sandbox, known command %q: %s (%s), want allow", cmd, d.Behavior, d.Reason)
		}
	}
}

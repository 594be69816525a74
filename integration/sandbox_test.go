package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Issue 27's attack table, run for real through robota -p: with Bash allowed and
// Read(./secret.txt) and Edit(./.git/**) denied, commands of every class the permission
// checker cannot see into (interpreters running inline code, commands built at run time,
// git reading files itself, extractors and copies into .git, and issue 31's classes in
// sandbox_classes_test.go: extractors, patch tools, recursive copies, git's index and
// work tree, run-time matches, whole-tree reads, file:// URLs, options and variables
// that run a program) run in the command sandbox (those the checker cannot see into run
// for real, not stopped by the checker):
// the secret's marker never reaches a tool result, no git hook lands or goes, .git/config
// and .claude/settings.json stay as they were, while commands
// that touch nothing denied (a build, git status, go test) work with their output as
// outside. The same table with the sandbox off (settings sandbox.enabled false, the path
// an unavailable kernel takes too) shows the fallback: each such command is asked about,
// so robota -p denies it and lists it in permission_denials.
func TestSandboxAttackTable(t *testing.T) {
	for _, tool := range []string{"git", "go", "python3", "perl"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the attack table needs %s on PATH", tool)
		}
	}
	const marker = "MARK-5c1d-secret"
	attacks := []string{
		`python3 -c 'print(open("secret.txt").read())'`,
		`perl -e 'open F, "secret.txt"; print <F>'`,
		`echo Y2F0IHNlY3JldC50eHQ= | base64 -d | sh`,
		`bash -c "$(echo cat secret.txt)"`,
		`X=secret; eval "c""at $X.txt"`,
		`git grep --no-index MARK .`,
		`git diff --no-index /dev/null secret.txt; true`,
		`sh -c 'cat secr*'`,
		`git init -q --template=tpl .; ls .git/hooks`,
		`python3 -c 'open(".git/hooks/pre-commit","w").write("#!/bin/sh\necho pwned\n")'`,
		`sh -c 'cp -r tpl/hooks/. .git/hooks/'`,
		`X=.git/hooks/post-checkout; sh -c "echo x > $X"`,
		// Issue 31's classes: extractors, patch tools, recursive copies into ".", git's
		// index and work tree.
		`mkdir -p x/.git/hooks && cp tpl/hooks/pre-commit x/.git/hooks/ && tar -C x -cf h.tar .git && sh -c 'tar -xf h.tar'`,
		`mkdir -p y/.git/hooks && cp tpl/hooks/pre-commit y/.git/hooks/ && sh -c 'cp -r y/. .'`,
		`mkdir -p z/.git/hooks && cp tpl/hooks/post-checkout z/.git/hooks/ && sh -c 'rsync -a z/ ./ 2>&1 || cp -a z/. .'`,
		`printf -- '--- /dev/null
+++ b/.git/hooks/pre-commit
@@ -0,0 +1 @@
+echo pwned
' > p.diff; sh -c 'git apply --unsafe-paths p.diff 2>&1; patch -p1 < p.diff 2>&1'; true`,
		`python3 -c 'import shutil; shutil.copy("tpl/hooks/pre-commit", ".git/hooks/pre-commit")'`,
	}
	if _, err := exec.LookPath("node"); err == nil {
		attacks = append(attacks, `node -e 'console.log(require("fs").readFileSync("secret.txt","utf8"))'`)
	}
	benign := map[string]string{ // command → what its output must contain
		"git status --short":           "",
		"go test ./...":                "ok",
		"go build ./... && echo built": "built",
		"cat notes.txt":                "hello notes",
	}

	// Issue 31's classes (sandbox_classes_test.go), each a step of its own on fixtures.
	var runs = map[string]bool{}
	for _, a := range classAttacksHere(t) {
		attacks = append(attacks, a.cmd)
		runs[a.cmd] = a.runs
	}
	for cmd, want := range map[string]string{"tar -tf fx/t.tar": ".git/hooks/post-checkout",
		"cp -r tpl build && ls build/hooks": "pre-commit", "less notes.txt": "hello notes",
		"curl -s file://{P}/notes.txt": "hello notes", "unzip -l fx/u.zip": ".git/hooks/pre-commit"} {
		if _, err := exec.LookPath(strings.Fields(cmd)[0]); err == nil {
			benign[cmd] = want
		}
	}

	for _, sandboxed := range []bool{true, false} {
		t.Run(fmt.Sprintf("sandboxed=%v", sandboxed), func(t *testing.T) {
			settings := map[string]any{"permissions": map[string]any{"allow": []string{"Bash"},
				"deny": []string{"Read(./secret.txt)", "Edit(./.git/**)"}}}
			if !sandboxed {
				settings["sandbox"] = map[string]any{"enabled": false}
			}
			b, _ := json.Marshal(settings)
			p := attackProject(t, marker, string(b))
			before := protectedState(t, p.Dir)
			wantStatus, _ := exec.Command("git", "-C", p.Dir, "status", "--short").Output()
			benign["git status --short"] = string(wantStatus)

			var calls []string
			var cmds []string
			for _, c := range attacks {
				cmds = append(cmds, c)
			}
			for c := range benign {
				cmds = append(cmds, c)
			}
			for i, c := range cmds {
				in, _ := json.Marshal(map[string]string{"command": strings.ReplaceAll(c, "{P}", p.Dir)})
				calls = append(calls, fmt.Sprintf("      - {id: call_%d, name: Bash, input: %s}", i, in))
			}
			script := p.writeScript(t, "attack.yaml", "turns:\n  - toolCalls:\n"+strings.Join(calls, "\n")+"\n  - text: done\n")
			// go test and go build compile: allow them more than one run's usual time.
			ctx, cancel := context.WithTimeout(context.Background(), 4*runTimeout)
			defer cancel()
			cmd := p.command(ctx, "-p", "go", "--provider", "script", "--script", script, "--output-format", "stream-json", "--verbose")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("robota: %v\nstderr:\n%s", err, stderr.String())
			}
			res := runResult{Stdout: stdout.String(), Stderr: stderr.String()}
			results, denied := sandboxToolResults(t, res.Stdout)
			for i, c := range cmds {
				id := fmt.Sprintf("call_%d", i)
				out, ran := results[id]
				if strings.Contains(out, marker) {
					t.Errorf("%q showed the secret:\n%s", c, out)
				}
				want, isBenign := benign[c]
				switch {
				case isBenign && !sandboxed && strings.HasPrefix(c, "go "):
					// The fallback asks about programs whose file access it cannot know.
					if !denied[id] {
						t.Errorf("without the sandbox, %q was not asked about (output %q)", c, out)
					}
				case isBenign && (!ran || denied[id] || !strings.Contains(out, want)):
					t.Errorf("%q (touches nothing denied): denied %v, output %q, want it to contain %q", c, denied[id], out, want)
				case sandboxed && strings.HasPrefix(c, "python3 -c 'print") && (!ran || denied[id]):
					// The checker cannot see into it: it ran, and the sandbox held.
					t.Errorf("with the sandbox, %q was denied instead of running: %q", c, out)
				case sandboxed && runs[c] && (!ran || denied[id]):
					// The checker cannot see what it does: it ran, and the sandbox held.
					t.Errorf("with the sandbox, %q was denied instead of running: %q", c, out)
				case !isBenign && !sandboxed && !denied[id]:
					t.Errorf("without the sandbox, %q was not asked about (output %q)", c, out)
				}
			}
			// No hook landed or went, .git/config and .claude/settings.json are as they were.
			after := protectedState(t, p.Dir)
			for _, k := range changedState(before, after) {
				t.Errorf("%s changed:\nbefore: %q\nafter:  %q", k, before[k], after[k])
			}
			if t.Failed() {
				t.Logf("stderr:\n%s", res.Stderr)
			}
		})
	}
}

// sandboxToolResults maps each tool_use id of a stream-json run to its tool_result text, and
// lists the ids of permission_denials.
func sandboxToolResults(t *testing.T, stdout string) (map[string]string, map[string]bool) {
	t.Helper()
	results, denied := map[string]string{}, map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var m struct {
			Type    string `json:"type"`
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
			PermissionDenials []struct {
				ToolUseID string `json:"tool_use_id"`
			} `json:"permission_denials"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		switch m.Type {
		case "user":
			var blocks []struct {
				ToolUseID string          `json:"tool_use_id"`
				Content   json.RawMessage `json:"content"`
			}
			_ = json.Unmarshal(m.Message.Content, &blocks)
			for _, b := range blocks {
				var text string
				if json.Unmarshal(b.Content, &text) != nil {
					text = string(b.Content)
				}
				results[b.ToolUseID] = text
			}
		case "result":
			for _, d := range m.PermissionDenials {
				denied[d.ToolUseID] = true
			}
		}
	}
	return results, denied
}

// A sandboxed Bash command and everything it started die with robota, on kill -9 too:
// the command's first process gets the parent-death signal, and its PID namespace ends
// with it (issue 31).
func TestBashCommandDiesWithRobota(t *testing.T) {
	p := newProject(t)
	p.writeFile(t, ".claude/settings.json", `{"permissions": {"defaultMode": "bypassPermissions"}}`)
	script := p.writeScript(t, "kill.yaml", `turns:
  - toolCalls:
      - {id: c1, name: Bash, input: {command: "(sleep 40; echo late > late.txt) & echo started > started.txt; sleep 40"}}
  - text: done
`)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := p.command(ctx, "-p", "go", "--provider", "script", "--script", script)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killWhenStarted(t, cmd, filepath.Join(p.Dir, "started.txt"))
	var left []string
	for i := 0; i < 100; i++ {
		left = processesIn(p.Dir)
		if len(left) == 0 {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, pid := range left { // do not leave them behind for the next test
		if n, err := strconv.Atoi(pid); err == nil {
			_ = syscall.Kill(n, syscall.SIGKILL)
		}
	}
	t.Fatalf("processes still running in the project after robota was killed: %v", left)
}

// processesIn lists the PIDs whose working directory is dir.
func processesIn(dir string) []string {
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		if cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd")); err == nil && cwd == dir {
			out = append(out, e.Name())
		}
	}
	return out
}

// Issue 31: the assistant message asking for a tool call is journaled before the tool
// runs, so a session resumed after robota was killed mid-command knows the command was
// started, and the model is told its result is unknown.
func TestResumeAfterKillKnowsTheCommandStarted(t *testing.T) {
	p := newProject(t)
	p.writeFile(t, ".claude/settings.json", `{"permissions": {"defaultMode": "bypassPermissions"}}`)
	const id = "4b0c6e1e-2a6f-4b7e-9a43-3f1f6a0c9d21"
	script := p.writeScript(t, "unanswered.yaml", `turns:
  - when: {lastUserContains: "start it"}
    toolCalls:
      - {id: toolu_long, name: Bash, input: {command: "echo started > started.txt; sleep 40"}}
  - when: {lastUserContains: "what happened"}
    text: "resumed"
  - text: "done"
`)
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := p.command(ctx, "-p", "start it", "--provider", "script", "--script", script, "--session-id", id)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killWhenStarted(t, cmd, filepath.Join(p.Dir, "started.txt"))
	res := p.run(t, "-p", "what happened", "--provider", "script", "--script", script, "--resume", id, "--output-format", "json")
	if res.Code != 0 || !strings.Contains(res.Stdout, `"result":"resumed"`) {
		t.Fatalf("resume: exit %d\n%s\n%s", res.Code, res.Stdout, res.Stderr)
	}
	var found bool
	_ = filepath.WalkDir(filepath.Join(p.Dir, ".robota", "sessions"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(path)
			found = found || bytes.Contains(b, []byte("toolu_long")) && bytes.Contains(b, []byte("robota stopped before it ended"))
		}
		return nil
	})
	if !found {
		t.Fatal("the resumed session holds no call toolu_long answered as unknown")
	}
}

// killWhenStarted waits for the command robota runs to write marker, then kills robota
// with SIGKILL and waits for it.
func killWhenStarted(t *testing.T, cmd *exec.Cmd, marker string) {
	t.Helper()
	for i := 0; ; i++ {
		if _, err := os.Stat(marker); err == nil {
			break
		}
		if i > 400 {
			_ = cmd.Process.Kill()
			t.Fatal("the command never started")
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
}

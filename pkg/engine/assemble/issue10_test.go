package assemble

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	. "github.com/robota-sdk/robota-go/pkg/engine/interactive"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
)

// runAssembled assembles a session for dir, runs prompt once and closes it. It returns the
// end event of every tool call, by tool-use id.
func runAssembled(t *testing.T, dir, home, prompt string, opts Options) map[string]session.ToolExecutionEvent {
	t.Helper()
	got := map[string]session.ToolExecutionEvent{}
	opts.Cwd, opts.Home, opts.Now, opts.NewID = dir, home, fixedNow, ids()
	if opts.Env == nil {
		opts.Env = envOf(nil)
	}
	opts.Callbacks.OnToolExecution = func(e session.ToolExecutionEvent) {
		if e.Type == session.ToolEnd {
			got[e.ToolUseID] = e
		}
	}
	a, err := Assemble(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Session.Run(context.Background(), prompt); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(context.Background(), "other"); err != nil {
		t.Fatal(err)
	}
	return got
}

// Issue 10 §1 through the whole stack (settings, permission enforcer, real tools): twenty
// Edit calls to one file in one message all land and all report success.
func TestAssembledTwentyEditsOfOneFileAllLand(t *testing.T) {
	const n = 20
	var calls strings.Builder
	var orig strings.Builder
	for i := range n {
		fmt.Fprintf(&calls, "      - {id: e%02d, name: Edit, input: {file_path: \"DIR/f.txt\", old_string: \"line %02d old\", new_string: \"line %02d new\"}}\n", i, i, i)
		fmt.Fprintf(&orig, "line %02d old\n", i)
	}
	script := "turns:\n  - toolCalls:\n" + calls.String() + "  - text: done\n"
	dir, home := project(t, script, `, "permissions": {"defaultMode": "acceptEdits"}`)
	writeFile(t, filepath.Join(dir, "f.txt"), orig.String())
	got := runAssembled(t, dir, home, "edit", Options{})
	for i := range n {
		id := fmt.Sprintf("e%02d", i)
		if e := got[id]; !e.Success {
			t.Errorf("%s = %+v, want success", id, e)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "f.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.ReplaceAll(orig.String(), " old\n", " new\n"); string(data) != want {
		t.Fatalf("file after %d edits:\n%s", n, data)
	}
}

// Issue 10 §5 end to end: a Bash command whose output is truncated says how many
// characters were cut and where the whole output is; a following Read of that file is
// allowed in the default permission mode and shows the part that was cut.
func TestAssembledTruncatedBashOutputIsSavedAndReadable(t *testing.T) {
	script := `
turns:
  - toolCalls: [{id: c1, name: Bash, input: {command: "seq 1 20000"}}]
  - toolCalls: [{id: c2, name: Read, input: {file_path: "DIR/.robota/tool-output/bash-c1.txt", offset: 10000, limit: 2}}]
  - text: done
`
	dir, home := project(t, script, `, "permissions": {"allow": ["Bash(seq *)"]}`)
	var results []string
	got := runAssembled(t, dir, home, "count", Options{OnMessage: func(m llm.Message) {
		if r, ok := m.ToolResult(); ok {
			results = append(results, r.Content)
		}
	}})
	if len(results) != 2 || !got["c1"].Success || !got["c2"].Success {
		t.Fatalf("results %d, c1 %+v, c2 %+v", len(results), got["c1"], got["c2"])
	}
	saved := filepath.Join(dir, ".robota", "tool-output", "bash-c1.txt")
	whole, err := os.ReadFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	total := len(whole) - 1 // Bash trims the final newline from what the model sees
	bashOut := results[0]
	m := regexp.MustCompile(`\[(\d+) characters truncated\. The full output is saved in (\S+);`).FindStringSubmatch(bashOut)
	if m == nil || m[2] != saved {
		t.Fatalf("Bash result does not name %s:\n%.300s", saved, bashOut)
	}
	head, rest, _ := strings.Cut(bashOut, "\n\n... [")
	_, tail, _ := strings.Cut(rest, "] ...\n\n")
	if cut, _ := strconv.Atoi(m[1]); len(head)+cut+len(tail) != total || len(bashOut) > 30_000 {
		t.Fatalf("kept %d+%d characters, reported %d cut, output had %d; result has %d characters", len(head), len(tail), cut, total, len(bashOut))
	}
	if !strings.Contains(results[1], "10000\t10000") || !strings.Contains(results[1], "10001\t10001") {
		t.Fatalf("Read of the saved output:\n%s", results[1])
	}
}

// Issue 10 §5 through the real permission evaluator: a call with arguments that do not
// parse is answered "could not be parsed" with its text, not with a permission message,
// and it is not listed among the permission denials.
func TestAssembledUnparsableToolInputIsNotADenial(t *testing.T) {
	script := `
turns:
  - toolCalls:
      # Providers hand over streamed arguments that do not parse as a JSON string of the text.
      - {id: c1, name: Bash, inputJson: '"{\"command\": \"rm -rf build"'}
      - {id: c2, name: Edit, inputJson: '"{\"file_path\": \"DIR/a.txt\", \"old_string\": "'}
  - text: done
`
	dir, home := project(t, script, "")
	var results []string
	opts := Options{OnMessage: func(m llm.Message) {
		if r, ok := m.ToolResult(); ok {
			results = append(results, r.Content)
		}
	}}
	opts.Cwd, opts.Home, opts.Env, opts.Now, opts.NewID = dir, home, envOf(nil), fixedNow, ids()
	a, err := Assemble(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Session.Run(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if d := a.Session.PermissionDenials(); len(d) != 0 {
		t.Errorf("permission denials %+v, want none", d)
	}
	if err := a.Close(context.Background(), "other"); err != nil {
		t.Fatal(err)
	}
	want := []string{`Input received: {"command": "rm -rf build`, `Input received: {"file_path": "` + dir + `/a.txt", "old_string": `}
	if len(results) != 2 {
		t.Fatalf("results %q", results)
	}
	for i, r := range results {
		if !strings.HasPrefix(r, session.InvalidInputPrefix) || !strings.Contains(r, want[i]) || strings.Contains(r, session.PermissionDeniedPrefix) {
			t.Errorf("result %d = %q", i, r)
		}
	}
}

// Issue 10 §5: without a round cap, a run that stops on repeated unknown tools (and whose
// final summary fails) never claims "Maximum rounds reached".
func TestAssembledNoMaximumRoundsWithoutACap(t *testing.T) {
	script := `
turns:
  - toolCalls: [{id: c1, name: Ghost, input: {}}]
  - toolCalls: [{id: c2, name: Ghost, input: {}}]
`
	dir, home := project(t, script, "")
	opts := Options{Cwd: dir, Home: home, Env: envOf(nil), Now: fixedNow, NewID: ids()}
	a, err := Assemble(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := a.Session.Run(context.Background(), "go")
	if err := a.Close(context.Background(), "other"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(answer, "Maximum rounds") || a.Session.LastResult().StopReason != agent.StopUnknownTools {
		t.Fatalf("answer %q, stop %s", answer, a.Session.LastResult().StopReason)
	}
}

// Issue 10 §6: the settings `env` of every layer reaches Bash and command hooks, merged by
// name with the higher layer winning (user < project < local), over the inherited
// environment.
func TestAssembledSettingsEnvReachesBashAndHooks(t *testing.T) {
	script := `
turns:
  - toolCalls: [{id: c1, name: Bash, input: {command: "printf '%s/%s/%s/%s' \"$RT_A\" \"$RT_B\" \"$RT_C\" \"$RT_D\""}}]
  - text: done
`
	dir, home := project(t, script, `, "permissions": {"allow": ["Bash"]},
  "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
    "command": "printf '%s/%s/%s/%s' \"$RT_A\" \"$RT_B\" \"$RT_C\" \"$RT_D\" > \"$CLAUDE_PROJECT_DIR/hook.txt\""}]}]}`)
	t.Setenv("RT_D", "inherited")
	writeFile(t, filepath.Join(home, ".claude", "settings.json"),
		`{"env": {"RT_A": "user", "RT_B": "user", "RT_C": "user", "RT_D": "user"}}`)
	writeFile(t, filepath.Join(dir, ".robota", "settings.json"), `{"env": {"RT_B": "project", "RT_C": "project"}}`)
	writeFile(t, filepath.Join(dir, ".claude", "settings.local.json"), `{"env": {"RT_C": "local"}}`)
	var results []string
	got := runAssembled(t, dir, home, "env", Options{OnMessage: func(m llm.Message) {
		if r, ok := m.ToolResult(); ok {
			results = append(results, r.Content)
		}
	}})
	const want = "user/project/local/user"
	if !got["c1"].Success || len(results) != 1 || results[0] != want {
		t.Fatalf("Bash saw %q (%+v), want %q", results, got["c1"], want)
	}
	hookOut, err := os.ReadFile(filepath.Join(dir, "hook.txt"))
	if err != nil || string(hookOut) != want {
		t.Fatalf("hook saw %q (%v), want %q", hookOut, err, want)
	}
}

// Issue 10 §6: a .robota that is a symlink leading outside the project is refused at
// assembly with an error naming the link and its target, before anything is written
// there; a link inside the project is fine.
func TestAssembleRefusesRobotaSymlinkOutsideTheProject(t *testing.T) {
	tests := []struct {
		name    string
		target  func(dir, outside string) string
		wantErr bool
	}{
		{"outside", func(_, outside string) string { return outside }, true},
		{"outside through ..", func(dir, outside string) string {
			rel, _ := filepath.Rel(dir, outside)
			return rel
		}, true},
		{"dangling", func(_, outside string) string { return filepath.Join(outside, "missing") }, true},
		{"inside the project", func(dir, _ string) string {
			if err := os.Mkdir(filepath.Join(dir, "state"), 0o755); err != nil {
				t.Fatal(err)
			}
			return "state"
		}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir, home := project(t, "turns:\n  - text: hi\n", "")
			outside := t.TempDir()
			target := tc.target(dir, outside)
			if err := os.Symlink(target, filepath.Join(dir, ".robota")); err != nil {
				t.Fatal(err)
			}
			a, err := Assemble(context.Background(), Options{Cwd: dir, Home: home, Env: envOf(nil), Now: fixedNow, NewID: ids()})
			if !tc.wantErr {
				if err != nil {
					t.Fatal(err)
				}
				if err := a.Close(context.Background(), "other"); err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil {
				a.Close(context.Background(), "other")
				t.Fatal("Assemble accepted a .robota leading outside the project")
			}
			if !errors.Is(err, ErrRobotaDirOutside) || !errors.Is(err, ErrInvalidConfiguration) ||
				!strings.Contains(err.Error(), filepath.Join(dir, ".robota")) || !strings.Contains(err.Error(), outside) {
				t.Fatalf("error %v: want ErrRobotaDirOutside naming the link and where it leads", err)
			}
			if entries, _ := os.ReadDir(outside); len(entries) != 0 {
				t.Fatalf("written outside the project: %v", entries)
			}
		})
	}
}

// Saved tool output stays out of git: new projects get tool-output/ in .robota/.gitignore,
// and a file an earlier version wrote (and nobody edited) is brought up to date.
func TestToolOutputIsGitignored(t *testing.T) {
	for _, previous := range []string{previousRuntimeGitignore, toolOutputRuntimeGitignore, checkpointsRuntimeGitignore} {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, ".robota", ".gitignore"), previous)
		if err := ensureRuntimeGitignore(dir); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(filepath.Join(dir, ".robota", ".gitignore"))
		if string(got) != runtimeGitignore || !strings.Contains(runtimeGitignore, "\ntool-output/\n") ||
			!strings.Contains(runtimeGitignore, "\ncheckpoints/\n") || !strings.Contains(runtimeGitignore, "\nmemory/pending/\n") {
			t.Fatalf(".gitignore = %q", got)
		}
	}
}

package assemble

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/permission"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
)

// searchScript greps the whole project for a key that .env holds, in each output mode,
// and lists every file with Glob.
const searchScript = `
turns:
  - text: "Looking for keys."
    toolCalls:
      - {id: content, name: Grep, input: {pattern: "API_KEY", output_mode: content}}
      - {id: files, name: Grep, input: {pattern: "API_KEY"}}
      - {id: count, name: Grep, input: {pattern: "API_KEY", output_mode: count}}
      - {id: glob, name: Glob, input: {pattern: "**/*"}}
  - text: "Done."
`

const envSecret = "sk-live-hunter2"

// searchRun assembles a session over a project with .env, an example file and a private
// directory, runs searchScript, and returns each tool result's serialized data, the
// conversation and the session log.
func searchRun(t *testing.T, permissions string) (results map[string]string, history, log string, dir string) {
	t.Helper()
	dir, home := project(t, searchScript, permissions)
	writeFile(t, filepath.Join(dir, ".env"), "API_KEY="+envSecret+"\n")
	writeFile(t, filepath.Join(dir, "config", "example.txt"), "API_KEY=placeholder\n")
	writeFile(t, filepath.Join(dir, "private", "notes.txt"), "API_KEY=private-value\n")
	results = map[string]string{}
	ctx := context.Background()
	a, err := Assemble(ctx, Options{Cwd: dir, Home: home, Env: envOf(nil), Now: fixedNow, NewID: ids(),
		Callbacks: session.Callbacks{OnToolExecution: func(e session.ToolExecutionEvent) {
			if e.Type == session.ToolEnd {
				if !e.Success {
					t.Errorf("%s failed: %s %s", e.ToolUseID, e.ErrorCode, e.Reason)
				}
				results[e.ToolUseID] = e.ToolResultData
			}
		}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Session.Run(ctx, "find the API keys"); err != nil {
		t.Fatal(err)
	}
	msgs, _ := json.Marshal(a.Session.Messages())
	if err := a.Close(ctx, "other"); err != nil {
		t.Fatal(err)
	}
	logData, err := os.ReadFile(a.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	return results, string(msgs), string(logData), dir
}

func output(t *testing.T, data string) (text, backend string) {
	t.Helper()
	var res llm.ToolResult
	if err := json.Unmarshal([]byte(data), &res); err != nil {
		t.Fatalf("tool result %q: %v", data, err)
	}
	b, _ := res.Metadata["backend"].(string)
	return res.Output, b
}

// A `Read(./.env)` deny rule keeps .env out of Grep and Glob run over the whole project,
// and a `Grep(./private/**)` rule keeps private/ out of Grep only — with either Grep
// backend. Without the rules, the same run does find .env (the test would notice if it
// did not search it at all).
func TestReadDenyRulesReachEveryFileASearchWalks(t *testing.T) {
	backends := []struct{ name, path string }{{"go", t.TempDir()}}
	if _, err := exec.LookPath("rg"); err == nil {
		backends = append(backends, struct{ name, path string }{"ripgrep", os.Getenv("PATH")})
	} else if os.Getenv("CI") != "" {
		t.Fatal("ripgrep (rg) is not on PATH in CI")
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			t.Setenv("PATH", b.path)

			open, _, _, _ := searchRun(t, "")
			if text, _ := output(t, open["content"]); !strings.Contains(text, envSecret) {
				t.Fatalf("without deny rules, Grep did not find .env's line:\n%s", text)
			}

			results, history, log, dir := searchRun(t, `,
  "permissions": {"deny": ["Read(./.env)", "Grep(./private/**)"]}`)
			envPath := filepath.Join(dir, ".env")
			for _, id := range []string{"content", "files", "count"} {
				text, backend := output(t, results[id])
				if backend != b.name {
					t.Errorf("%s ran on backend %q, want %q", id, backend, b.name)
				}
				if strings.Contains(text, envPath) || strings.Contains(text, envSecret) || strings.Contains(text, "private-value") ||
					strings.Contains(text, filepath.Join(dir, "private")) {
					t.Errorf("Grep %s reached a denied file:\n%s", id, text)
				}
				if !strings.Contains(text, filepath.Join(dir, "config", "example.txt")) {
					t.Errorf("Grep %s lost the allowed file:\n%s", id, text)
				}
			}
			if text, _ := output(t, results["content"]); !strings.Contains(text, "API_KEY=placeholder") {
				t.Errorf("Grep content lacks the allowed line:\n%s", text)
			}
			globbed, _ := output(t, results["glob"])
			listed := map[string]bool{}
			for _, line := range strings.Split(globbed, "\n") {
				listed[line] = true
			}
			if listed[envPath] {
				t.Errorf("Glob listed .env:\n%s", globbed)
			}
			for _, want := range []string{filepath.Join(dir, "config", "example.txt"), filepath.Join(dir, "private", "notes.txt")} {
				if !listed[want] {
					t.Errorf("Glob did not list %s (only Grep is denied private/):\n%s", want, globbed)
				}
			}
			for name, text := range map[string]string{"conversation": history, "session log": log} {
				if strings.Contains(text, envSecret) || strings.Contains(text, "private-value") {
					t.Errorf("the %s holds denied content", name)
				}
			}
		})
	}
}

// searchExclude asks the deny rules per tool, skips the per-file check for a tool no deny
// rule names (nil when neither search tool has one), and always asks for other tools.
func TestSearchExcludeFollowsEachToolsDenyRules(t *testing.T) {
	dir := t.TempDir()
	env, plain, private := filepath.Join(dir, ".env"), filepath.Join(dir, "a.txt"), filepath.Join(dir, "private", "n.txt")
	tests := []struct {
		name     string
		deny     []string
		wantNil  bool
		excluded map[string][]string // tool → paths it must exclude; the others it must keep
	}{
		{name: "no rules", wantNil: true},
		{name: "rules of other tools", deny: []string{"Bash(rm *)", "Edit(./.env)", "WebFetch"}, wantNil: true},
		{name: "Read rule", deny: []string{"Read(./.env)"},
			excluded: map[string][]string{"Grep": {env}, "Glob": {env}, "LS": {env}}},
		{name: "Grep rule", deny: []string{"Grep(./private/**)"},
			excluded: map[string][]string{"Grep": {private}, "Glob": nil}},
		{name: "bare Glob rule", deny: []string{"Glob"},
			excluded: map[string][]string{"Grep": nil, "Glob": {env, plain, private}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rules, err := permission.Rules(permission.Layer{Deny: tt.deny})
			if err != nil {
				t.Fatal(err)
			}
			x := searchExclude(permission.New(permission.Config{Rules: rules, ProjectRoot: dir, Home: t.TempDir()}), dir)
			if (x == nil) != tt.wantNil {
				t.Fatalf("filter nil = %v, want %v", x == nil, tt.wantNil)
			}
			for tool, want := range tt.excluded {
				for _, p := range []string{env, plain, private} {
					if got, w := x(tool, p), slicesContains(want, p); got != w {
						t.Errorf("%s excludes %s = %v, want %v", tool, p, got, w)
					}
				}
			}
		})
	}
}

func slicesContains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

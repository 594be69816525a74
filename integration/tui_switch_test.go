package integration

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/internal/engineproc"
)

// resumeHint is what robota prints at exit: the session to resume.
var resumeHint = regexp.MustCompile(`robota --resume ([0-9a-zA-Z-]+)`)

// TestTUIResumePicker: /resume lists the project's other sessions by their first
// prompt, with age and size; choosing one switches to it (its conversation shown, the
// next prompt goes to it), and robota --resume without an id opens the same picker.
func TestTUIResumePicker(t *testing.T) {
	frontEnds(t, streamScript, func(t *testing.T, e tuiEnv) {
		tm := startTUI(t, e, 90, 24)
		tm.typeText("hello, session one")
		tm.keys("Enter")
		tm.waitFor("nice to meet you", tuiWait)
		tm.typeText("/exit")
		tm.keys("Enter")
		m := resumeHint.FindStringSubmatch(tm.waitFor("Resume this session with:", tuiWait))
		if m == nil {
			t.Fatal("no session id at exit")
		}
		first := m[1]

		tm2 := startTUI(t, e, 90, 24)
		tm2.typeText("hello, session two")
		tm2.keys("Enter")
		tm2.waitFor("nice to meet you", tuiWait)
		tm2.typeText("/resume")
		tm2.keys("Enter")
		s := tm2.waitFor("Resume a session", tuiWait)
		if !regexp.MustCompile(`❯ hello, session one · just now · \d+ messages`).MatchString(s) {
			t.Fatalf("the picker does not list the first session by its prompt and size:\n%s", s)
		}
		if strings.Contains(s, "❯ hello, session two") || strings.Count(s, "hello, session two") > 1 {
			t.Fatalf("the picker lists the session in use:\n%s", s)
		}
		tm2.keys("Enter")
		s = tm2.waitFor("resumed session "+first, tuiWait)
		if !strings.Contains(s, "> hello, session one") {
			t.Fatalf("the resumed conversation is not shown:\n%s", s)
		}
		tm2.typeText("hello again")
		tm2.keys("Enter")
		tm2.waitFor("> hello again", tuiWait)
		tm2.typeText("/exit")
		tm2.keys("Enter")
		m = resumeHint.FindStringSubmatch(tm2.waitFor("Resume this session with:", tuiWait))
		if m == nil || m[1] != first {
			t.Fatalf("after switching, exit names %v, want the first session %s", m, first)
		}

		// robota --resume (no id) opens the picker at the start.
		tm3 := startTUI(t, e, 90, 24, "--resume")
		tm3.waitFor("Resume a session", tuiWait)
		tm3.keys("Escape")
		tm3.waitGone("Resume a session", tuiWait)
		tm3.typeText("/resume " + first)
		tm3.keys("Enter")
		s = tm3.waitFor("resumed session "+first, tuiWait)
		if !strings.Contains(s, "> hello again") {
			t.Fatalf("/resume ID does not show the conversation:\n%s", s)
		}
	})
}

const taskScript = `
name: tui-tasks
turns:
  - when: {lastUserContains: "start the ticker"}
    toolCalls: [{id: b1, name: Bash, input: {command: "for i in 1 2 3; do echo tick-$i; done; sleep 60", run_in_background: true, description: "ticker"}}]
  - when: {lastUserContains: "start the ticker"}
    text: "The ticker runs in the background."
`

// TestTUITaskView: /tasks lists the running background task; enter shows its output;
// k stops it, and it leaves the list and the status line.
func TestTUITaskView(t *testing.T) {
	frontEnds(t, taskScript, func(t *testing.T, e tuiEnv) {
		tm := startTUI(t, e, 100, 30, "--allowedTools", "Bash")
		tm.typeText("start the ticker")
		tm.keys("Enter")
		tm.waitFor("The ticker runs in the background.", tuiWait)
		tm.waitFor("1 background task", tuiWait)
		tm.typeText("/tasks")
		tm.keys("Enter")
		// The view's own key help, not "Background tasks": the completion list's line for
		// /tasks says that too, and shows until Enter is read (CI caught it there once).
		s := tm.waitFor("enter view output", tuiWait)
		if !strings.Contains(s, "❯ ") || !strings.Contains(s, "running") {
			t.Fatalf("the task list does not show the running task:\n%s", s)
		}
		tm.keys("Enter")
		tm.waitFor("tick-3", tuiWait)
		tm.keys("k")
		s = tm.waitGone("1 background task", tuiWait)
		tm.waitFor("· ended", tuiWait)
		tm.keys("Escape")
		tm.keys("Escape")
		s = tm.waitGone("Background tasks", tuiWait)
		if strings.Contains(s, "◼ ") {
			t.Fatalf("a stopped task is still listed as running:\n%s", s)
		}
	})
}

// TestTUIEngineReconnect: the engine goes away under --engine: the UI says so, keeps
// what is typed, and Ctrl-R reconnects once the engine is back (the session resumed
// from the engine's store), after which the typed prompt runs there.
func TestTUIEngineReconnect(t *testing.T) {
	e := newTUIEnv(t, streamScript)
	sock := filepath.Join(shortTempDir(t), "e.sock")
	start := func() *engineproc.Proc {
		env := append(os.Environ(), "HOME="+e.home)
		p, err := engineproc.StartEnv(binDir, sock, env, nil, "--state-dir", filepath.Join(e.home, ".engine-state"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			p.Kill()
			_, _ = p.Wait(5 * time.Second)
		})
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if _, _, err := p.WaitMsg(ctx, 0, "engine listening"); err != nil {
			t.Fatal(err)
		}
		return p
	}
	first := start()
	e.engine = "unix://" + sock
	tm := startTUI(t, e, 90, 24)
	tm.typeText("hello before the restart")
	tm.keys("Enter")
	tm.waitFor("nice to meet you", tuiWait)

	if err := first.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if _, err := first.Wait(20 * time.Second); err != nil {
		t.Fatalf("engine did not stop: %v", err)
	}
	tm.waitFor("Ctrl-R reconnects", tuiWait)
	tm.typeText("hello after the restart")
	tm.keys("C-r") // the engine is still down: said, nothing lost
	s := tm.waitFor("Reconnect failed", tuiWait)
	if !strings.Contains(s, "> hello after the restart") {
		t.Fatalf("the typed prompt is gone after a failed reconnect:\n%s", s)
	}
	start()
	tm.keys("C-r")
	tm.waitFor("Reconnected to the engine", tuiWait)
	tm.keys("Enter")
	s = tm.waitFor("> hello after the restart", tuiWait)
	if strings.Count(tm.waitFor("nice to meet you", tuiWait), "nice to meet you") < 1 {
		t.Fatalf("no answer after reconnecting:\n%s", s)
	}
	tm.typeText("/exit")
	tm.keys("Enter")
	all := tm.waitFor("Resume this session with:", tuiWait)
	if strings.Count(tm.all(), "nice to meet you") < 2 {
		t.Fatalf("the second answer is missing:\n%s", all)
	}
}

const mcpApprovalScript = `
name: tui-mcp
turns:
  - when: {lastUserContains: "use both servers"}
    toolCalls:
      - {id: a1, name: mcp__alpha__echo, input: {text: "to alpha"}}
      - {id: b1, name: mcp__beta__echo, input: {text: "to beta"}}
  - when: {lastUserContains: "use both servers"}
    text: "Servers used."
`

// TestTUIMCPApproval: at an interactive start, each project .mcp.json server no setting
// approves waits for the user (Claude Code's dialog); the answers are kept in the
// project's .claude/settings.local.json, the approved server starts, the refused one
// does not, and the next start asks nothing.
func TestTUIMCPApproval(t *testing.T) {
	server := buildMCPServer(t)
	frontEnds(t, mcpApprovalScript, func(t *testing.T, e tuiEnv) {
		calls := map[string]string{"alpha": filepath.Join(e.home, "alpha.calls"), "beta": filepath.Join(e.home, "beta.calls")}
		cfg := `{"mcpServers": {` +
			`"alpha": {"command": "` + server + `", "env": {"MCP_CALLS_FILE": "` + calls["alpha"] + `"}},` +
			`"beta": {"command": "` + server + `", "env": {"MCP_CALLS_FILE": "` + calls["beta"] + `"}}}}`
		if err := os.WriteFile(filepath.Join(e.dir, ".mcp.json"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		e.untrusted = true // the dialog comes before the prompt box
		tm := startTUI(t, e, 100, 30, "--allowedTools", "mcp__alpha__echo,mcp__beta__echo")
		tm.waitFor("New MCP server found in .mcp.json: alpha", tuiWait)
		tm.keys("2") // use this server
		tm.waitFor("New MCP server found in .mcp.json: beta", tuiWait)
		tm.keys("Escape") // continue without it
		tm.waitFor(`Try "explain`, tuiWait)
		local, err := os.ReadFile(filepath.Join(e.dir, ".claude", "settings.local.json"))
		if err != nil {
			t.Fatal(err)
		}
		var kept struct {
			Enabled  []string `json:"enabledMcpjsonServers"`
			Disabled []string `json:"disabledMcpjsonServers"`
		}
		if err := json.Unmarshal(local, &kept); err != nil || len(kept.Enabled) != 1 || kept.Enabled[0] != "alpha" ||
			len(kept.Disabled) != 1 || kept.Disabled[0] != "beta" {
			t.Fatalf("settings.local.json = %s (%v)", local, err)
		}
		tm.typeText("use both servers")
		tm.keys("Enter")
		tm.waitFor("Servers used.", tuiWait)
		if b, err := os.ReadFile(calls["alpha"]); err != nil || !strings.Contains(string(b), "to alpha") {
			t.Fatalf("the approved server was not called: %q, %v", b, err)
		}
		if _, err := os.Stat(calls["beta"]); !os.IsNotExist(err) {
			t.Fatalf("the refused server ran a call (%v)", err)
		}
		tm.typeText("/exit")
		tm.keys("Enter")
		tm.waitFor("Resume this session with:", tuiWait)

		e.untrusted = false // answered: the next start goes straight to the prompt box
		tm2 := startTUI(t, e, 100, 30)
		if s := tm2.screen(); strings.Contains(s, "New MCP server") {
			t.Fatalf("asked again:\n%s", s)
		}
	})
}

// TestTUISetupErrorEndsTheUI: the first frame does not wait for the session; a session
// that cannot be made (a settings mistake) ends the UI, names the file and the key, and
// exits 2 as a headless run does.
func TestTUISetupErrorEndsTheUI(t *testing.T) {
	e := newTUIEnv(t, streamScript)
	if err := os.MkdirAll(filepath.Join(e.dir, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.dir, ".claude", "settings.json"), []byte(`{"permissions": {"allow": 5}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	e.untrusted = true // the UI ends before the prompt box is waited for
	e.showExit = true
	tm := startTUI(t, e, 100, 30)
	s := tm.waitFor("robota exited", tuiWait)
	all := tm.all()
	if !strings.Contains(all, ".claude/settings.json") || !strings.Contains(all, "permissions.allow") {
		t.Fatalf("the error does not name the file and the key:\n%s\n%s", all, s)
	}
	if !strings.Contains(all, "robota exited 2") {
		t.Fatalf("want exit status 2:\n%s", all)
	}
}

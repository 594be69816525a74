package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The TUI's end-to-end tests: the real robota binary in a private tmux server, against
// the script provider. Each runs in process and again attached to robota-engine
// (--engine): the same UI over both adapters.

const tuiWait = 10 * time.Second

// idlePrompt is the prompt box with its placeholder: what the screen shows once no turn runs.
const idlePrompt = `> Try "explain this project"`

// frontEnds runs fn once per way of running the TUI's session.
func frontEnds(t *testing.T, script string, fn func(t *testing.T, e tuiEnv)) {
	t.Run("inprocess", func(t *testing.T) {
		t.Parallel()
		fn(t, newTUIEnv(t, script))
	})
	t.Run("engine", func(t *testing.T) {
		t.Parallel()
		e := newTUIEnv(t, script)
		proc, _ := startEngineEnv(t, e.home)
		e.engine = "unix://" + proc.Socket
		fn(t, e)
	})
}

const streamScript = `
name: tui-stream
turns:
  - when: {lastUserContains: "count"}
    delay: 120ms
    text: "Counting: alpha beta gamma delta epsilon zeta eta theta iota kappa lambda omega-end"
  - when: {lastUserContains: "second"}
    text: "Answer to the queued prompt."
  - when: {lastUserContains: "日の本語"}
    text: "CJK edited fine."
  - when: {lastUserContains: "hello"}
    text: "Hello **there**, nice to meet you."
    repeat: true
`

// TestTUIStreamedAnswer: the answer is on screen while it streams (its first words
// before its last), then whole, rendered as markdown in the scrollback.
func TestTUIStreamedAnswer(t *testing.T) {
	frontEnds(t, streamScript, func(t *testing.T, e tuiEnv) {
		tm := startTUI(t, e, 80, 20)
		tm.typeText("count please")
		tm.keys("Enter")
		s := tm.waitFor("alpha", tuiWait)
		if strings.Contains(s, "omega-end") {
			t.Fatalf("the whole answer came at once, not streamed:\n%s", s)
		}
		// The turn's end reaches the screen in two frames: the prompt box's placeholder
		// (the turn no longer runs) and the answer printed above it, which leaves the
		// live area. The golden is taken once both are there: the answer once, and idle.
		s = tm.waitScreen("the answer once and the idle prompt box", tuiWait, func(s string) bool {
			return strings.Count(s, "omega-end") == 1 && strings.Contains(s, idlePrompt)
		})
		golden(t, "streamed", masked(s, e))
	})
}

// TestTUIInitialPrompt: robota "PROMPT" starts the UI and sends the prompt, as
// claude "PROMPT" does.
func TestTUIInitialPrompt(t *testing.T) {
	e := newTUIEnv(t, streamScript)
	tm := startTUI(t, e, 80, 20, "hello from the command line")
	tm.waitFor("> hello from the command line", tuiWait)
	tm.waitFor("nice to meet you", tuiWait)
}

// TestTUIEscInterrupts: Esc during a stream stops it; the partial answer stays, marked
// interrupted, and the prompt box takes the next prompt.
func TestTUIEscInterrupts(t *testing.T) {
	frontEnds(t, streamScript, func(t *testing.T, e tuiEnv) {
		tm := startTUI(t, e, 80, 20)
		tm.typeText("count slowly")
		tm.keys("Enter")
		tm.waitFor("beta", tuiWait)
		tm.keys("Escape")
		s := tm.waitFor("Interrupted by user", tuiWait)
		if !strings.Contains(s, "Counting: alpha") || strings.Contains(s, "omega-end") {
			t.Fatalf("partial answer not kept (or not interrupted):\n%s", s)
		}
		tm.typeText("hello")
		tm.keys("Enter")
		tm.waitFor("nice to meet you", tuiWait)
	})
}

// TestTUIQueuedPrompt: a prompt entered while one runs is shown as queued and runs
// when the first ends.
func TestTUIQueuedPrompt(t *testing.T) {
	frontEnds(t, streamScript, func(t *testing.T, e tuiEnv) {
		tm := startTUI(t, e, 80, 20)
		tm.typeText("count")
		tm.keys("Enter")
		tm.waitFor("alpha", tuiWait)
		tm.typeText("second prompt")
		tm.keys("Enter")
		s := tm.waitFor("queued: second prompt", tuiWait)
		if strings.Contains(s, "Answer to the queued prompt") {
			t.Fatalf("queued prompt ran before the first ended:\n%s", s)
		}
		tm.waitFor("Answer to the queued prompt.", 2*tuiWait)
		all := tm.all()
		if strings.Index(all, "omega-end") > strings.Index(all, "> second prompt") {
			t.Fatalf("the queued prompt started before the first answer ended:\n%s", all)
		}
		tm.waitGone("queued:", tuiWait)
	})
}

// TestTUICJKEdit: a CJK prompt edited with the cursor in its middle is sent as edited.
func TestTUICJKEdit(t *testing.T) {
	frontEnds(t, streamScript, func(t *testing.T, e tuiEnv) {
		tm := startTUI(t, e, 60, 16)
		tm.typeText("日本語")
		tm.keys("Left", "Left")
		tm.typeText("の")
		s := tm.waitFor("> 日の本語", tuiWait)
		if strings.Count(s, "日の本語") != 1 {
			t.Fatalf("edited prompt shown wrong:\n%s", s)
		}
		tm.keys("C-a")
		tm.typeText("x")
		tm.keys("C-e")
		tm.typeText("y")
		tm.waitFor("> x日の本語y", tuiWait)
		tm.keys("C-a", "Delete", "C-e", "BSpace", "Enter")
		tm.waitFor("CJK edited fine.", tuiWait)
	})
}

// TestTUISlashCompletionAndHelp: "/" opens the completion list with descriptions and
// argument hints; Tab completes; /help lists the commands.
func TestTUISlashCompletionAndHelp(t *testing.T) {
	frontEnds(t, streamScript, func(t *testing.T, e tuiEnv) {
		tm := startTUI(t, e, 80, 60) // tall enough for /help's whole list on screen
		tm.typeText("/co")
		s := tm.waitFor("/compact [instructions]", tuiWait)
		for _, want := range []string{"Compact the conversation", "/context", "/cost"} {
			if !strings.Contains(s, want) {
				t.Fatalf("completion list lacks %q:\n%s", want, s)
			}
		}
		if _, list, _ := strings.Cut(s, "> /co"); strings.Contains(list, "/help") {
			t.Fatalf("completion list not filtered by the prefix:\n%s", s)
		}
		tm.keys("C-u")
		tm.typeText("/hel")
		tm.waitFor("List the available commands", tuiWait)
		tm.keys("Tab")
		tm.waitGone("List the available commands", tuiWait) // completed: "/help ", list closed
		tm.keys("Enter")
		tm.waitFor("/rename NAME - Name this session", tuiWait)
		// The list and the cleared prompt box may reach the screen in two frames: the
		// golden is taken once the box shows its placeholder again.
		s = tm.waitFor(idlePrompt, tuiWait)
		if !strings.Contains(s, "/rename NAME - Name this session") {
			t.Fatalf("the /help list left the screen:\n%s", s)
		}
		golden(t, "help", masked(s, e))
	})
}

const bashScript = `
name: tui-bash
turns:
  - when: {lastUserContains: "approve"}
    text: "Running the first command."
    toolCalls:
      - name: Bash
        input: {command: "echo approved-output", description: "print"}
  - when: {lastToolResultContains: "approved-output"}
    text: "The first command ran."
  - when: {lastUserContains: "deny"}
    text: "Running the second command."
    toolCalls:
      - name: Bash
        input: {command: "echo must-not-run", description: "print"}
  - when: {lastToolResultContains: "use printf instead"}
    text: "Understood, I will use printf."
`

// TestTUIBashApproveAndDeny: a Bash call waits for the permission prompt; 1 runs it,
// 3 denies it with a message the model gets.
func TestTUIBashApproveAndDeny(t *testing.T) {
	frontEnds(t, bashScript, func(t *testing.T, e tuiEnv) {
		tm := startTUI(t, e, 80, 24)
		tm.typeText("approve this")
		tm.keys("Enter")
		s := tm.waitFor("Do you want to proceed?", tuiWait)
		for _, want := range []string{"Bash command", "echo approved-output", "1. Yes", "2. Yes, and", "3. No, and tell the model"} {
			if !strings.Contains(s, want) {
				t.Fatalf("permission prompt lacks %q:\n%s", want, s)
			}
		}
		tm.keys("1")
		tm.waitFor("The first command ran.", tuiWait)
		if all := tm.all(); !strings.Contains(all, "⎿  approved-output") {
			t.Fatalf("the command's output is not shown:\n%s", all)
		}
		tm.typeText("now deny this")
		tm.keys("Enter")
		tm.waitFor("echo must-not-run", tuiWait)
		tm.waitFor("Do you want to proceed?", tuiWait)
		tm.keys("3")
		tm.waitFor("Tell the model what to do instead", tuiWait)
		tm.typeText("use printf instead")
		tm.keys("Enter")
		tm.waitFor("Understood, I will use printf.", tuiWait)
		all := tm.all()
		if !strings.Contains(all, "Denied") || strings.Contains(all, "⎿  must-not-run") {
			t.Fatalf("the denied command is not shown denied (or ran):\n%s", all)
		}
	})
}

const editScript = `
name: tui-edit
turns:
  - when: {lastUserContains: "fix"}
    text: "Fixing the greeting."
    toolCalls:
      - name: Edit
        input: {file_path: "{{.Dir}}/greet.txt", old_string: "hello wrld", new_string: "hello world"}
  - when: {lastToolResultContains: "greet.txt"}
    text: "Fixed the typo."
`

// TestTUIEditDiff: an Edit is shown as a diff with line numbers, and lands on disk.
func TestTUIEditDiff(t *testing.T) {
	frontEnds(t, editScript, func(t *testing.T, e tuiEnv) {
		if err := os.WriteFile(filepath.Join(e.dir, "greet.txt"), []byte("line one\nhello wrld\nline three\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		tm := startTUI(t, e, 80, 24, "--permission-mode", "acceptEdits")
		tm.typeText("fix the typo")
		tm.keys("Enter")
		tm.waitFor("Fixed the typo.", tuiWait)
		all := tm.all()
		// The change with the unchanged lines around it, numbered (in process and over gRPC).
		for _, want := range []string{"Updated " + e.dir + "/greet.txt with 1 addition and 1 removal",
			"1   line one", "2 - hello wrld", "2 + hello world", "3   line three"} {
			if !strings.Contains(all, want) {
				t.Fatalf("diff lacks %q:\n%s", want, all)
			}
		}
		got, _ := os.ReadFile(filepath.Join(e.dir, "greet.txt"))
		if string(got) != "line one\nhello world\nline three\n" {
			t.Fatalf("file after the edit: %q", got)
		}
	})
}

// TestTUIResize: a resize reflows the live area without leftovers: one prompt box,
// nothing wider than the terminal, the status line whole or cut cleanly.
func TestTUIResize(t *testing.T) {
	frontEnds(t, streamScript, func(t *testing.T, e tuiEnv) {
		tm := startTUI(t, e, 80, 20)
		tm.typeText("hello")
		tm.keys("Enter")
		tm.waitFor("nice to meet you", tuiWait)
		tm.tmux("resize-window", "-t", "tui", "-x", "40", "-y", "14")
		time.Sleep(300 * time.Millisecond)
		tm.typeText("typed after")
		s := tm.waitFor("> typed after", tuiWait)
		checkLiveArea(t, s, 40, "> typed after")
		noStrayRows(t, tm.all())
		tm.tmux("resize-window", "-t", "tui", "-x", "100", "-y", "20")
		time.Sleep(300 * time.Millisecond)
		tm.keys("End")
		tm.typeText("!")
		s = tm.waitFor("> typed after!", tuiWait)
		checkLiveArea(t, s, 100, "> typed after!")
		noStrayRows(t, tm.all())
		if !strings.Contains(tm.all(), "Hello there, nice to meet you.") {
			t.Fatalf("the answer was lost in the resize:\n%s", tm.all())
		}
	})
}

// noStrayRows: the scrollback and screen hold the live area's two rules and no other
// row of rule (the old live area's rows, rewrapped by the terminal at a new width, are
// gone), and the banner once.
func noStrayRows(t *testing.T, all string) {
	t.Helper()
	rules := 0
	for _, row := range strings.Split(all, "\n") {
		if row != "" && strings.Trim(row, "─") == "" {
			rules++
		}
	}
	if rules != 2 || strings.Count(all, "Welcome to") != 1 {
		t.Fatalf("%d rows of rule (want the live area's 2), %d banners:\n%s", rules, strings.Count(all, "Welcome to"), all)
	}
}

// checkLiveArea: the screen ends with the prompt box (rule, prompt, rule) and the
// status line, drawn once, at the terminal's width.
func checkLiveArea(t *testing.T, screen string, width int, prompt string) {
	t.Helper()
	rows := strings.Split(screen, "\n")
	if len(rows) < 4 {
		t.Fatalf("screen too short:\n%s", screen)
	}
	rule := strings.Repeat("─", width)
	tail := rows[len(rows)-4:]
	if tail[0] != rule || tail[1] != prompt || tail[2] != rule || !strings.HasPrefix(tail[3], "script-model") {
		t.Fatalf("live area at width %d is not rule/prompt/rule/status:\n%s", width, screen)
	}
	if n := strings.Count(screen, prompt); n != 1 {
		t.Fatalf("prompt drawn %d times:\n%s", n, screen)
	}
}

// TestTUIContinueAfterQuit: /exit saves the session; robota --continue shows the
// conversation again and goes on with it.
func TestTUIContinueAfterQuit(t *testing.T) {
	frontEnds(t, streamScript, func(t *testing.T, e tuiEnv) {
		tm := startTUI(t, e, 80, 20)
		tm.typeText("hello first")
		tm.keys("Enter")
		tm.waitFor("nice to meet you", tuiWait)
		tm.typeText("/exit")
		tm.keys("Enter")
		tm.waitFor("Resume this session with:", tuiWait)
		tm2 := startTUI(t, e, 80, 20, "--continue")
		s := tm2.waitFor("resumed session", tuiWait)
		if !strings.Contains(s, "> hello first") || !strings.Contains(s, "nice to meet you") {
			t.Fatalf("--continue does not show the conversation:\n%s", s)
		}
		tm2.keys("Up") // the prompt history is kept per project, across sessions
		tm2.waitFor("> hello first", tuiWait)
		tm2.keys("C-u")
		tm2.typeText("hello again")
		tm2.keys("Enter")
		tm2.waitFor("> hello again", tuiWait)
		if strings.Count(tm2.waitFor("nice to meet you", tuiWait), "nice to meet you") < 1 {
			t.Fatal("no answer after --continue")
		}
		tm2.keys("C-c")
		tm2.waitFor("Press Ctrl-C again to exit", tuiWait)
		tm2.keys("C-c")
		tm2.waitFor("Resume this session with:", tuiWait)
	})
}

// TestTUINarrowNoColor: NO_COLOR and a terminal narrower than 40 columns (then 1×1)
// degrade, never crash: no colour escapes, lines cut to the width, answers still shown.
func TestTUINarrowNoColor(t *testing.T) {
	e := newTUIEnv(t, streamScript)
	tm := startTUIEnv(t, e, 30, 12, []string{"NO_COLOR=1"})
	tm.typeText("hello")
	tm.keys("Enter")
	tm.waitFor("nice to meet", tuiWait)
	colored := tm.tmux("capture-pane", "-p", "-e", "-t", "tui")
	if strings.Contains(colored, "\x1b[3") || strings.Contains(colored, "\x1b[9") {
		t.Fatalf("colours under NO_COLOR:\n%q", colored)
	}
	for _, l := range strings.Split(tm.screen(), "\n") {
		if w := len([]rune(l)); w > 30 {
			t.Fatalf("line wider than the terminal: %q", l)
		}
	}
	tm.tmux("resize-window", "-t", "tui", "-x", "1", "-y", "1")
	time.Sleep(200 * time.Millisecond)
	tm.tmux("resize-window", "-t", "tui", "-x", "30", "-y", "12")
	tm.typeText("hello")
	tm.keys("Enter")
	tm.waitFor("> hello", tuiWait)
	if strings.Contains(tm.all(), "Pane is dead") {
		t.Fatalf("robota died at 1x1:\n%s", tm.all())
	}
}

const hookScript = `
name: tui-trust
turns:
  - text: "Trusted and running."
    repeat: true
`

// TestTUITrustDialog: the first start in a folder asks whether to trust it before any
// project hook runs; "No" exits with nothing run, "Yes" is remembered.
func TestTUITrustDialog(t *testing.T) {
	e := newTUIEnv(t, hookScript)
	os.Remove(filepath.Join(e.home, ".robota", "trusted-folders.json"))
	e.untrusted = true
	marker := filepath.Join(e.dir, "session-start-ran")
	settings := `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "touch ` + marker + `"}]}]}}`
	if err := os.MkdirAll(filepath.Join(e.dir, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.dir, ".claude", "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	tm := startTUI(t, e, 80, 20)
	s := tm.waitFor("Do you trust the files in this folder?", tuiWait)
	if !strings.Contains(s, e.dir) {
		t.Fatalf("the dialog does not name the folder:\n%s", s)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a project hook ran before the folder was trusted")
	}
	tm.keys("2")
	tm.waitFor("is not trusted; nothing was run", tuiWait)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a project hook ran after the user said no")
	}
	tm2 := startTUI(t, e, 80, 20)
	tm2.waitFor("Do you trust the files in this folder?", tuiWait)
	tm2.keys("1")
	tm2.waitFor("Try \"explain", tuiWait)
	tm2.keys("C-d")
	tm2.waitFor("Resume this session with:", tuiWait)
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("the project's SessionStart hook did not run once trusted")
	}
	e.untrusted = false
	tm3 := startTUI(t, e, 80, 20) // waits for the prompt box: no dialog the second time
	if strings.Contains(tm3.all(), "Do you trust") {
		t.Fatal("asked again after trusting")
	}
}

package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

func TestPermissionAnswers(t *testing.T) {
	cases := []struct {
		name  string
		keys  []string
		typed string
		want  string
	}{
		{"1 allows once", []string{"1"}, "", "r1:1:"},
		{"2 allows for the session", []string{"2"}, "", "r1:2:"},
		{"enter takes the highlighted", []string{"down", "enter"}, "", "r1:2:"},
		{"esc denies", []string{"esc"}, "", "r1:3:"},
		{"3 denies with a message", []string{"3"}, "use ls", "r1:3:use ls"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, f := newTestModel(t)
			typeText(m, "go")
			press(m, "enter")
			m.event(Event{Kind: EvPermission, PromptID: "p1", Perm: &Permission{ID: "r1", ToolName: "Bash", Input: []byte(`{"command":"ls"}`), SessionRule: "Bash(ls *)"}})
			view := m.View().Content
			if !strings.Contains(view, "Yes, and allow Bash(ls *) for this session") || !strings.Contains(view, "ls") {
				t.Fatalf("prompt does not show the rule and command:\n%s", view)
			}
			for _, k := range c.keys {
				if k == "down" {
					m.permissionKey("down")
					continue
				}
				press(m, k)
			}
			if c.typed != "" {
				typeText(m, c.typed)
				press(m, "enter")
			}
			if len(f.answers) != 1 || f.answers[0] != c.want {
				t.Fatalf("answers %q, want %q", f.answers, c.want)
			}
			if m.perm != nil {
				t.Fatal("the prompt stays open")
			}
		})
	}
}

func TestSubagentAskNamesIt(t *testing.T) {
	m, _ := newTestModel(t)
	m.event(Event{Kind: EvTask, Task: &Task{ID: "t1", Label: "explorer: find files", Status: "running"}})
	m.event(Event{Kind: EvPermission, Perm: &Permission{ID: "r1", ToolName: "Bash", Subagent: "t1"}})
	if v := m.View().Content; !strings.Contains(v, "asked by subagent explorer: find files") {
		t.Fatalf("subagent not named:\n%s", v)
	}
}

func TestQueueRunsAfterTheRunningPrompt(t *testing.T) {
	m, f := newTestModel(t)
	typeText(m, "first")
	press(m, "enter")
	typeText(m, "second")
	press(m, "enter")
	if len(f.submitted) != 1 || !strings.Contains(m.View().Content, "queued: second") {
		t.Fatalf("second not queued: %q\n%s", f.submitted, m.View().Content)
	}
	m.event(Event{Kind: EvText, PromptID: "p1", Text: "answer"})
	m.event(Event{Kind: EvEnd, PromptID: "p1", End: &End{Outcome: "complete"}})
	if len(f.submitted) != 2 || f.submitted[1] != "second" {
		t.Fatalf("queued prompt not submitted after the end: %q", f.submitted)
	}
}

func TestEscInterruptsAndKeepsPartial(t *testing.T) {
	m, f := newTestModel(t)
	typeText(m, "go")
	press(m, "enter")
	m.event(Event{Kind: EvText, PromptID: "p1", Text: "partial answ"})
	press(m, "esc")
	if f.aborts != 1 {
		t.Fatalf("aborts %d", f.aborts)
	}
	m.event(Event{Kind: EvEnd, PromptID: "p1", End: &End{Outcome: "interrupted"}})
	out := m.out.text()
	if !strings.Contains(out, "partial answ") || !strings.Contains(out, "Interrupted by user") {
		t.Fatalf("scrollback:\n%s", out)
	}
}

func TestCtrlCClearsThenQuitsTwice(t *testing.T) {
	m, _ := newTestModel(t)
	typeText(m, "draft")
	press(m, "ctrl+c")
	if !m.ed.Empty() || m.quitting {
		t.Fatal("first Ctrl-C should clear the input only")
	}
	press(m, "ctrl+c")
	if m.quitting || !strings.Contains(m.View().Content, "Press Ctrl-C again") {
		t.Fatal("Ctrl-C on an empty prompt should ask for a second")
	}
	press(m, "ctrl+c")
	if !m.quitting {
		t.Fatal("second Ctrl-C did not quit")
	}
}

func TestShiftTabCyclesModes(t *testing.T) {
	m, f := newTestModel(t)
	var seen []string
	for range 3 {
		press(m, "shift+tab")
		seen = append(seen, f.mode)
	}
	if strings.Join(seen, ",") != "acceptEdits,plan,default" {
		t.Fatalf("modes %v", seen)
	}
}

func TestToolOutputSanitizedAndBounded(t *testing.T) {
	m, _ := newTestModel(t)
	out := "l1\x1b[2J\nl2\nl3\nl4\nl5\nl6\xff"
	m.event(Event{Kind: EvToolEnd, Tool: &Tool{ID: "c1", Name: "Bash", FirstArg: "x", Result: "success", Preview: out}})
	s := m.out.text()
	if strings.Contains(s, "\x1b[2J") || strings.Contains(s, "l6") || !strings.Contains(s, "+2 lines (ctrl+o to expand)") {
		t.Fatalf("preview:\n%q", s)
	}
	m.expand()
	if s := m.out.text(); !strings.Contains(s, "l6\uFFFD") {
		t.Fatalf("ctrl+o did not show the whole output:\n%q", s)
	}
}

func TestAtCompletesFilePaths(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"main.go", "make.sh", "pkg/x.go", ".hidden"} {
		p := filepath.Join(dir, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, nil, 0o644)
	}
	m, _ := newTestModel(t)
	m.files.root = dir
	typeText(m, "look at @ma")
	v := m.View().Content
	if !strings.Contains(v, "@main.go") || !strings.Contains(v, "@make.sh") || strings.Contains(v, "@pkg/") {
		t.Fatalf("completion list:\n%s", v)
	}
	m.key(tea.KeyPressMsg{Code: tea.KeyTab})
	if got := m.ed.Text(); got != "look at @main.go " {
		t.Fatalf("after tab: %q", got)
	}
	typeText(m, "and @p")
	m.key(tea.KeyPressMsg{Code: tea.KeyTab})
	typeText(m, "x")
	m.key(tea.KeyPressMsg{Code: tea.KeyTab})
	if got := m.ed.Text(); got != "look at @main.go and @pkg/x.go " {
		t.Fatalf("nested: %q", got)
	}
}

func TestBackgroundTasksListed(t *testing.T) {
	m, _ := newTestModel(t)
	m.event(Event{Kind: EvTask, Task: &Task{ID: "t1", Label: "explorer: survey", Status: "running", Action: "Grep"}})
	v := m.View().Content
	if !strings.Contains(v, "◼ explorer: survey · running · Grep") || !strings.Contains(v, "1 background task") {
		t.Fatalf("task not listed:\n%s", v)
	}
	m.event(Event{Kind: EvTask, Task: &Task{ID: "t1", Status: "completed", Terminal: true}})
	if strings.Contains(m.View().Content, "explorer: survey") {
		t.Fatal("finished task still listed")
	}
}

func TestLostSessionKeepsInput(t *testing.T) {
	m, _ := newTestModel(t)
	m.Update(closedMsg{})
	typeText(m, "important prompt")
	press(m, "enter")
	if m.ed.Text() != "important prompt" || m.quitting {
		t.Fatalf("input lost after the session went away: %q", m.ed.Text())
	}
	if !strings.Contains(m.View().Content, "The session is gone") {
		t.Fatal("not said on screen")
	}
}

// A command's subcommands complete its first argument once one character of it is
// typed (case-insensitive): Tab fills it in, Enter runs the chosen one. "/language "
// alone and an argument no choice matches open no list, so Enter runs what was typed.
func TestSubcommandsComplete(t *testing.T) {
	m, f := newTestModel(t)
	typeText(m, "/language j")
	if v := m.View().Content; !strings.Contains(v, "/language Japanese") || strings.Contains(v, "/language English") {
		t.Fatalf("completion list:\n%s", v)
	}
	m.key(tea.KeyPressMsg{Code: tea.KeyTab})
	if got := m.ed.Text(); got != "/language Japanese " {
		t.Fatalf("after tab: %q", got)
	}
	m.ed.Reset()
	typeText(m, "/language ko")
	press(m, "enter")
	for _, tc := range []string{"/language ", "/language Klingon"} {
		typeText(m, tc)
		if m.completing() || strings.Contains(m.View().Content, "no matching command") {
			t.Fatalf("%q opens the completion list:\n%s", tc, m.View().Content)
		}
		press(m, "enter")
	}
	if want := []string{"language Korean", "language", "language Klingon"}; strings.Join(f.executed, "|") != strings.Join(want, "|") {
		t.Fatalf("ran %q, want %q", f.executed, want)
	}
}

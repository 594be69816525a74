package tui

import (
	"strings"
	"testing"
)

func TestEditorShellKeys(t *testing.T) {
	cases := []struct {
		name  string
		start string
		keys  func(e *editor)
		want  string
	}{
		{"ctrl-a insert", "world", func(e *editor) { e.Home(); e.Insert("hello ") }, "hello world"},
		{"ctrl-k", "hello world", func(e *editor) { e.Home(); e.Right(); e.KillEnd() }, "h"},
		{"ctrl-u", "hello world", func(e *editor) { e.Left(); e.KillStart() }, "d"},
		{"ctrl-w", "git commit -m  ", func(e *editor) { e.KillWord() }, "git commit "},
		{"ctrl-e after ctrl-a", "ab", func(e *editor) { e.Home(); e.End(); e.Insert("c") }, "abc"},
		{"cjk middle", "日本語", func(e *editor) { e.Left(); e.Left(); e.Insert("の") }, "日の本語"},
		{"cjk backspace", "日本語", func(e *editor) { e.Left(); e.Backspace() }, "日語"},
		{"line ops on second line", "one\ntwo", func(e *editor) { e.KillStart() }, "one\n"},
		{"up keeps column", "abc\nde", func(e *editor) { e.Up(); e.Insert("X") }, "abXc\nde"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var e editor
			e.SetText(c.start)
			c.keys(&e)
			if got := e.Text(); got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestEditorLayoutWide(t *testing.T) {
	var e editor
	e.SetText("日本語ab")
	e.cursor = 2 // before 語
	rows, r, c := e.Layout(5)
	// 日本 is 4 cells; 語 (2 cells) does not fit in the last cell and wraps whole.
	if strings.Join(rows, "|") != "日本|語ab" {
		t.Fatalf("rows %q", rows)
	}
	if r != 1 || c != 0 {
		t.Fatalf("cursor at %d,%d, want 1,0", r, c)
	}
	e.cursor = 1
	if _, r, c = e.Layout(5); r != 0 || c != 2 {
		t.Fatalf("cursor at %d,%d, want 0,2", r, c)
	}
}

func TestEditorPasteCollapsed(t *testing.T) {
	var e editor
	e.Insert("see ")
	big := strings.Repeat("line\n", 40) + "end"
	e.Paste(big)
	if got := e.Text(); got != "see [Pasted text #1 +41 lines]" {
		t.Fatalf("shown %q", got)
	}
	if e.Value() != "see "+big {
		t.Fatal("the paste is not sent whole")
	}
	e.Reset()
	e.Paste("small")
	if e.Value() != "small" || e.Text() != "small" {
		t.Fatalf("small paste %q", e.Text())
	}
}

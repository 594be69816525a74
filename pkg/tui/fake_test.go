package tui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// fakeSession records what the UI asks of a session.
type fakeSession struct {
	mu        sync.Mutex
	submitted []string
	answers   []string
	aborts    int
	mode      string
	events    chan Event
	executed  []string // "name args" of each command run
}

func newFake() *fakeSession { return &fakeSession{mode: "default", events: make(chan Event)} }

func (f *fakeSession) Info() Info {
	return Info{ID: "s1", Model: "m", Cwd: "/p", PermissionMode: f.mode}
}
func (f *fakeSession) Events() <-chan Event { return f.events }
func (f *fakeSession) Submit(p string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.submitted = append(f.submitted, p)
	return fmt.Sprintf("p%d", len(f.submitted)), nil
}
func (f *fakeSession) Abort() error { f.aborts++; return nil }
func (f *fakeSession) Respond(id string, a Answer, msg string) error {
	f.answers = append(f.answers, fmt.Sprintf("%s:%d:%s", id, a, msg))
	return nil
}
func (f *fakeSession) SetPermissionMode(m string) error { f.mode = m; return nil }
func (f *fakeSession) Commands() []Command {
	return []Command{{Name: "help", Description: "List the available commands"}, {Name: "compact", ArgumentHint: "[instructions]"},
		{Name: "language", ArgumentHint: "[language]", Subcommands: []string{"default", "English", "Korean", "Japanese"}}}
}
func (f *fakeSession) Execute(_ context.Context, name, args string) (CommandResult, error) {
	f.mu.Lock()
	f.executed = append(f.executed, strings.TrimSpace(name+" "+args))
	f.mu.Unlock()
	return CommandResult{Message: "ok", Success: true}, nil
}
func (f *fakeSession) Context() ContextState           { return ContextState{UsedPercent: 12} }
func (f *fakeSession) Close(ctx context.Context) error { return nil }

// newTestModel is a model over a fake session, 80×24, printing into a printer no one
// drains (tests read its pending output).
func newTestModel(t testing.TB) (*model, *fakeSession) {
	f := newFake()
	m := newModel(f, newPrinter(), newStyles(false), nil, func() time.Time { return time.Unix(0, 0) })
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	return m, f
}

func press(m *model, keys ...string) {
	for _, k := range keys {
		var msg tea.KeyPressMsg
		switch k {
		case "enter":
			msg = tea.KeyPressMsg{Code: tea.KeyEnter}
		case "esc":
			msg = tea.KeyPressMsg{Code: tea.KeyEscape}
		case "ctrl+c":
			msg = tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
		case "shift+tab":
			msg = tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
		case "up":
			msg = tea.KeyPressMsg{Code: tea.KeyUp}
		default:
			r := []rune(k)
			msg = tea.KeyPressMsg{Code: r[0], Text: k}
		}
		m.Update(msg)
	}
}

func typeText(m *model, s string) {
	for _, r := range s {
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func (p *printer) text() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := ""
	for _, s := range p.pending {
		out += s + "\n"
	}
	return out
}

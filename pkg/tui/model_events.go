package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// event applies one session event.
func (m *model) event(e Event) tea.Cmd {
	switch e.Kind {
	case EvText:
		if m.thinking.Len() > 0 {
			m.flushThinking()
		}
		m.streaming.WriteString(e.Text)
	case EvThinking:
		m.thinking.WriteString(e.Text)
	case EvToolStart:
		m.flushAnswer("")
		m.tools = append(m.tools, e.Tool)
		return m.startTicking()
	case EvToolEnd:
		m.flushAnswer("")
		for i, t := range m.tools {
			if t.ID == e.Tool.ID {
				m.tools = append(m.tools[:i], m.tools[i+1:]...)
				break
			}
		}
		m.print(m.renderToolEnd(e.Tool))
	case EvPermission:
		m.flushAnswer("")
		if m.perm == nil {
			m.perm, m.permSel = e.Perm, 0
		}
	case EvPermissionResolved:
		if m.perm != nil && m.perm.ID == e.ResolvedID {
			m.closePermission()
		}
	case EvContext:
		m.ctx = *e.Context
	case EvTask:
		if e.Task.Terminal {
			delete(m.tasks, e.Task.ID)
		} else {
			m.tasks[e.Task.ID] = e.Task
		}
		if cmd := m.taskChanged(e.Task); cmd != nil {
			return cmd
		}
		if len(m.tasks) > 0 {
			return m.startTicking() // elapsed times move
		}
	case EvCompaction:
		m.print(m.st.dim.Render("✻ Conversation compacted"))
	case EvEnd:
		return m.end(e)
	case EvReady:
		return m.ready(e)
	}
	return nil
}

func (m *model) end(e Event) tea.Cmd {
	if e.PromptID != m.running {
		return nil
	}
	m.running = ""
	m.tools = nil
	switch e.End.Outcome {
	case "interrupted":
		m.flushAnswer(m.st.bad.Render("  ⎿  Interrupted by user"))
	case "error":
		m.flushAnswer(indented(m.st.bad.Render("  ⎿  Error: "), Sanitize(e.End.Error), m.width-7))
	default:
		m.flushAnswer("")
	}
	if m.perm != nil {
		m.closePermission()
	}
	m.tokens += e.End.InputTokens + e.End.OutputTokens
	m.ctx = m.sess.Context()
	if len(m.queue) > 0 {
		next := m.queue[0]
		m.queue = m.queue[1:]
		if name, args, ok := splitCommand(next); ok {
			return m.command(name, args, next)
		}
		return m.submit(next)
	}
	return nil
}

// flushAnswer moves the streamed answer to the scrollback, rendered as markdown, with
// suffix (the interruption mark) after it.
func (m *model) flushAnswer(suffix string) {
	m.flushThinking()
	text := strings.TrimSpace(m.streaming.String())
	m.streaming.Reset()
	var parts []string
	if text != "" {
		parts = append(parts, m.renderAnswer(text))
	}
	if suffix != "" {
		parts = append(parts, suffix)
	}
	if len(parts) > 0 {
		m.print(strings.Join(parts, "\n"))
	}
}

func (m *model) renderAnswer(text string) string {
	return prefixLines(m.md.render(text, m.width-2), "⏺ ", "  ")
}

func (m *model) flushThinking() {
	if m.thinking.Len() == 0 {
		return
	}
	m.lastThought = m.thinking.String()
	n := strings.Count(strings.TrimSpace(m.lastThought), "\n") + 1
	m.thinking.Reset()
	m.print(m.st.dim.Render(fmt.Sprintf("✻ Thinking… (%d line%s, ctrl+o to expand)", n, plural(n))))
}

// permissionKey answers the permission prompt: 1/2/3 or Up/Down and Enter; Esc denies.
func (m *model) permissionKey(key string) tea.Cmd {
	switch key {
	case "1":
		m.answer(AllowOnce, "")
	case "2":
		m.answer(AllowSession, "")
	case "3":
		m.permSel = 2
		m.startDenyMessage()
	case "up", "shift+tab":
		m.permSel = (m.permSel + 2) % 3
	case "down", "tab":
		m.permSel = (m.permSel + 1) % 3
	case "enter":
		switch m.permSel {
		case 0:
			m.answer(AllowOnce, "")
		case 1:
			m.answer(AllowSession, "")
		default:
			m.startDenyMessage()
		}
	case "esc":
		m.answer(Deny, "")
	case "ctrl+c":
		m.answer(Deny, "")
		m.interrupt()
	}
	return nil
}

// startDenyMessage lets the user type what the model should do instead; Enter sends
// the denial with it, Esc denies without.
func (m *model) startDenyMessage() {
	m.permTyping = true
	m.permDraft = m.ed.Text()
	m.ed.Reset()
}

func (m *model) answer(a Answer, message string) {
	p := m.perm
	if p == nil {
		return
	}
	if err := m.sess.Respond(p.ID, a, message); err != nil {
		m.notice = "!" + err.Error()
	}
	title, detail := permissionTitle(p)
	switch a {
	case AllowSession:
		if p.SessionRule != "" {
			m.print(m.st.dim.Render("  ✓ Allowed for this session: " + Sanitize(p.SessionRule)))
		}
	case Deny:
		line := "  ✗ Denied " + title
		if detail != "" {
			line += ": " + truncate(detail, max(m.width-len(line)-4, 8))
		}
		if message != "" {
			line += "\n    " + Sanitize(firstLine(message))
		}
		m.print(m.st.bad.Render(line))
	}
	m.closePermission()
}

func (m *model) closePermission() {
	if m.permTyping {
		m.ed.SetText(m.permDraft)
	}
	m.perm, m.permTyping, m.permDraft, m.permSel = nil, false, "", 0
}

// ready takes the session a Deferred made: its model, commands and context, and the end
// of a resumed conversation. A session that could not be made ends the UI with why.
func (m *model) ready(e Event) tea.Cmd {
	if e.Info == nil {
		// The front end reports the error once the UI is gone (on stderr, as a
		// headless run does): printed here too it would show twice.
		m.quit()
		return tea.Quit
	}
	m.info = *e.Info
	if e.Text != "" {
		m.print(m.st.warn.Render(Sanitize(e.Text)))
	}
	if m.mode == "" {
		m.mode = m.info.PermissionMode
	}
	m.commands = append(m.sess.Commands(), uiCommands...)
	m.ctx = m.sess.Context()
	if len(m.info.Previous) > 0 {
		m.print(m.resumedBanner())
	}
	return nil
}

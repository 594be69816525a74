package tui

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// maxLiveRows bounds the streamed answer shown live: the rest is in the answer when
// it goes to the scrollback.
const maxCompletions = 8

// View renders the live area only; its cost depends on what is live, never on the
// length of the conversation.
func (m *model) View() tea.View {
	if m.quitting {
		return tea.NewView("")
	}
	w := m.width
	var rows []string
	add := func(s string) { rows = append(rows, strings.Split(s, "\n")...) }

	if m.thinking.Len() > 0 && m.streaming.Len() == 0 {
		add(m.st.dim.Render(spinnerFrames[m.spin%len(spinnerFrames)] + " Thinking…"))
	}
	if m.streaming.Len() > 0 {
		limit := max(m.height-10, 3)
		live := strings.Split(wrap(Sanitize(liveTail(m.streaming.String(), limit*max(w, 1)*4)), max(w-2, 1)), "\n")
		if len(live) > limit {
			live = live[len(live)-limit:]
		}
		for i, l := range live {
			p := "  "
			if i == 0 {
				p = "⏺ "
			}
			rows = append(rows, p+l)
		}
	}
	for _, t := range m.tools {
		add(m.st.tool.Render(spinnerFrames[m.spin%len(spinnerFrames)]+" ") + truncate(toolTitle(t), w-2))
		add(m.st.dim.Render("  ⎿  Running…"))
	}
	for _, t := range m.sortedTasks() {
		add(m.st.accent.Render(truncate("◼ "+m.taskLine(t), w)))
	}
	if len(m.tasks) > 0 && m.ov == nil {
		add(m.st.dim.Render(truncate("  /tasks to view output or stop", w)))
	}
	if m.running != "" && m.streaming.Len() == 0 && len(m.tools) == 0 && m.thinking.Len() == 0 && m.perm == nil {
		add(m.st.accent.Render(spinnerFrames[m.spin%len(spinnerFrames)] + " Working… (esc to interrupt)"))
	}
	if m.perm != nil {
		add(m.permissionView())
	} else if m.ov != nil {
		add(m.overlayView())
	}
	for _, q := range m.queue {
		add(m.st.dim.Render(truncate("⧗ queued: "+strings.ReplaceAll(Sanitize(q), "\n", " "), w)))
	}
	if len(m.queue) > 0 {
		add(m.st.dim.Render(truncate("  (up to edit the queued prompt)", w)))
	}

	// The prompt box.
	rule := m.st.border.Render(strings.Repeat("─", max(w, 1)))
	rows = append(rows, rule)
	edRows, curRow, curCol := m.ed.Layout(max(w-2, 1))
	top := len(rows)
	label := "> "
	if m.permTyping {
		label = "✗ "
	}
	for i, r := range edRows {
		p := "  "
		if i == 0 {
			p = label
		}
		rows = append(rows, p+r)
	}
	if m.ed.Empty() {
		hint := "Try \"explain this project\""
		if m.permTyping {
			hint = "Tell the model what to do instead (enter to send, esc to skip)"
		} else if m.running != "" {
			hint = "Type to queue a prompt"
		}
		rows[top] = label + m.st.dim.Render(truncate(hint, max(w-2, 1)))
	}
	rows = append(rows, rule)
	if m.completing() {
		rows = append(rows, m.completionRows()...)
	} else if list := m.fileMatches(); len(list) > 0 {
		sel := min(m.compSel, len(list)-1)
		for i, p := range list {
			line := truncate("  @"+Sanitize(p), w)
			if i == sel {
				line = m.st.selected.Render(line)
			} else {
				line = m.st.dim.Render(line)
			}
			rows = append(rows, line)
		}
	}
	rows = append(rows, m.statusLine())
	for i, r := range rows {
		if ansi.StringWidth(r) > w {
			rows[i] = truncate(r, w)
		}
	}
	v := tea.NewView(strings.Join(rows, "\n"))
	v.Cursor = tea.NewCursor(min(2+curCol, max(w-1, 0)), top+curRow)
	return v
}

func (m *model) permissionView() string {
	p := m.perm
	st := m.st
	title, detail := permissionTitle(p)
	w := m.width
	var b strings.Builder
	b.WriteString(st.warn.Render(strings.Repeat("─", max(w, 1))) + "\n")
	b.WriteString(st.warn.Render(title))
	if p.Subagent != "" {
		who := p.Subagent
		if t := m.tasks[p.Subagent]; t != nil && t.Label != "" {
			who = t.Label
		}
		b.WriteString(st.dim.Render(" (asked by subagent " + Sanitize(who) + ")"))
	}
	b.WriteString("\n")
	if detail != "" {
		for _, l := range strings.Split(wrap(detail, max(w-4, 1)), "\n") {
			b.WriteString("  " + l + "\n")
		}
	}
	if p.Reason != "" {
		b.WriteString(st.dim.Render(truncate("  "+Sanitize(firstLine(p.Reason)), w)) + "\n")
	}
	b.WriteString("Do you want to proceed?\n")
	second := "Yes, and don't ask again this session"
	if p.SessionRule != "" {
		second = "Yes, and allow " + Sanitize(p.SessionRule) + " for this session"
	}
	opts := []string{"Yes", second, "No, and tell the model what to do differently (esc)"}
	for i, o := range opts {
		line := fmt.Sprintf("  %d. %s", i+1, o)
		if i == m.permSel {
			line = st.selected.Render(fmt.Sprintf("❯ %d. %s", i+1, o))
		}
		b.WriteString(line)
		if i < len(opts)-1 {
			b.WriteString("\n")
		}
	}
	return b.String()
}

func (m *model) completionRows() []string {
	list := m.matches()
	if len(list) == 0 {
		return []string{m.st.dim.Render("  no matching command")}
	}
	sel := min(m.compSel, len(list)-1)
	start := 0
	if sel >= maxCompletions {
		start = sel - maxCompletions + 1
	}
	nameW := 0
	for _, c := range list {
		nameW = max(nameW, len(c.Name)+len(c.ArgumentHint)+2)
	}
	nameW = min(nameW, max(m.width/2, 8))
	var rows []string
	for i := start; i < len(list) && i < start+maxCompletions; i++ {
		c := list[i]
		name := "/" + c.Name
		if c.ArgumentHint != "" {
			name += " " + c.ArgumentHint
		}
		name = truncate(name, nameW)
		line := fmt.Sprintf("  %-*s  %s", nameW, name, Sanitize(c.Description))
		line = truncate(line, m.width)
		if i == sel {
			line = m.st.selected.Render(line)
		} else {
			line = m.st.dim.Render(line)
		}
		rows = append(rows, line)
	}
	return rows
}

func (m *model) statusLine() string {
	st := m.st
	parts := []string{Sanitize(m.info.Model)}
	switch m.mode {
	case "acceptEdits":
		parts = append(parts, st.accent.Render("⏵⏵ accept edits on"))
	case "plan":
		parts = append(parts, st.accent.Render("⏸ plan mode on"))
	case "bypassPermissions":
		parts = append(parts, st.bad.Render("⏵⏵ bypass permissions on"))
	default:
		parts = append(parts, "default mode")
	}
	ctx := fmt.Sprintf("context %.0f%%", m.ctx.UsedPercent)
	if m.ctx.UsedPercent >= 80 {
		ctx = st.warn.Render(ctx + " (near the limit: /compact)")
	}
	parts = append(parts, ctx, fmt.Sprintf("%s tokens", shortCount(m.tokens)))
	if n := len(m.tasks); n > 0 {
		parts = append(parts, st.accent.Render(fmt.Sprintf("%d background task%s", n, plural(n))))
	}
	line := strings.Join(parts, " · ")
	switch {
	case strings.HasPrefix(m.notice, "!"):
		line = st.bad.Render(m.notice[1:])
	case m.notice != "":
		line = st.warn.Render(m.notice)
	}
	return truncate(st.dim.Render(line), m.width)
}

func shortCount(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// liveTail is the end of a streaming answer that can fill the live rows: at most n
// bytes, from a line start when there is one, so a long answer costs each frame what
// the screen shows, not its whole length.
func liveTail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	if i := strings.IndexByte(s, '\n'); i >= 0 && i < len(s)-1 {
		return s[i+1:]
	}
	for i := 0; i < len(s) && i < 4; i++ { // start on a rune boundary
		if utf8.RuneStart(s[i]) {
			return s[i:]
		}
	}
	return s
}

// sortedTasks are the running background tasks, oldest first.
func (m *model) sortedTasks() []*Task {
	out := make([]*Task, 0, len(m.tasks))
	for _, t := range m.tasks {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

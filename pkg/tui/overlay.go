package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// An overlay takes the keys while it is open, above the prompt box: the /resume picker,
// the background task list (/tasks) and one task's output. What was typed in the prompt
// box stays there.
type overlayKind int

const (
	overlayResume overlayKind = iota + 1
	overlayTasks
	overlayTaskOutput
)

type overlay struct {
	kind  overlayKind
	items []overlayItem
	sel   int
	// task and output are the task shown by overlayTaskOutput and its output's end.
	task   string
	output string
	err    string
}

type overlayItem struct{ id, line string }

// overlayRows bounds the rows a list or an output shows.
const overlayRows = 10

// TaskControl is what the task view needs of a session: a task's output and stopping
// it. Both adapters implement it; a Session without it shows the list only.
type TaskControl interface {
	// TaskOutput returns the end of the task's output (at most max bytes).
	TaskOutput(ctx context.Context, taskID string, max int) (string, error)
	StopTask(ctx context.Context, taskID string) error
}

// taskOutputMax is how much of a task's output its view fetches.
const taskOutputMax = 32 << 10

// Messages of the overlays' background work.
type (
	resumeListMsg struct {
		items []overlayItem
		err   error
	}
	taskOutputMsg struct {
		task, output string
		err          error
	}
	switchedMsg struct {
		sess Session
		err  error
	}
)

// storedSession is one entry of the /resume command's data ("sessions").
type storedSession struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	FirstPrompt string    `json:"firstPrompt"`
	UpdatedAt   time.Time `json:"updatedAt"`
	Messages    int       `json:"messages"`
}

// openResume lists the project's stored sessions (the /resume command's data, the same
// in process and in an engine) for the picker.
func (m *model) openResume() tea.Cmd {
	if m.open == nil {
		m.print(m.st.bad.Render("  ⎿  This session cannot switch to another one; start robota --resume ID"))
		return nil
	}
	sess, now := m.sess, m.now()
	return func() tea.Msg {
		res, err := sess.Execute(context.Background(), "resume", "")
		if err != nil {
			return resumeListMsg{err: err}
		}
		var list []storedSession
		if raw, ok := res.Data["sessions"]; ok {
			b, err := json.Marshal(raw) // typed in process, decoded JSON from an engine: one path
			if err == nil {
				err = json.Unmarshal(b, &list)
			}
			if err != nil {
				return resumeListMsg{err: fmt.Errorf("the session list: %w", err)}
			}
		}
		items := make([]overlayItem, 0, len(list))
		for _, s := range list {
			title := s.Name
			if title == "" {
				title = s.FirstPrompt
			}
			if title == "" {
				title = "(no prompt)"
			}
			items = append(items, overlayItem{id: s.ID, line: fmt.Sprintf("%s · %s · %d messages",
				Sanitize(title), ago(now.Sub(s.UpdatedAt)), s.Messages)})
		}
		return resumeListMsg{items: items}
	}
}

// ago says how long ago, as a picker does.
func ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

// switchTo opens the stored session id (a /resume choice or argument) in place of the
// current one.
func (m *model) switchTo(id string) tea.Cmd {
	if m.running != "" || m.perm != nil {
		m.notice = "!Wait for the running prompt to end (or press esc) before switching sessions"
		return nil
	}
	m.ov = nil
	m.notice = "Opening session " + id + "…"
	open := m.open
	return func() tea.Msg {
		s, err := open(context.Background(), id)
		return switchedMsg{sess: s, err: err}
	}
}

// switched replaces the session: the old one is closed (saved), the new one's events
// flow from now on, and its last turns are printed as at a --resume start.
func (m *model) switched(msg switchedMsg) tea.Cmd {
	m.notice = ""
	if msg.err != nil {
		m.print(m.st.bad.Render("  ⎿  Resume failed: " + Sanitize(msg.err.Error())))
		return nil
	}
	old := m.sess
	m.sess, m.info = msg.sess, msg.sess.Info()
	m.gen++
	if m.attach != nil {
		m.attach(msg.sess, m.gen)
	}
	m.mode, m.ctx, m.tokens = m.info.PermissionMode, m.sess.Context(), 0
	m.tasks, m.queue, m.tools, m.lost = map[string]*Task{}, nil, nil, false
	m.commands = append(m.sess.Commands(), uiCommands...)
	m.print(m.resumedBanner())
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = old.Close(ctx) // saved every round already; a failure here loses nothing typed
		return nil
	}
}

// openTasks shows the running background tasks; enter shows one's output.
func (m *model) openTasks() {
	ov := &overlay{kind: overlayTasks}
	for _, t := range m.sortedTasks() {
		ov.items = append(ov.items, overlayItem{id: t.ID, line: m.taskLine(t)})
	}
	m.ov = ov
}

func (m *model) taskLine(t *Task) string {
	line := fmt.Sprintf("%s · %s", Sanitize(t.Label), t.Status)
	if t.Action != "" {
		line += " · " + Sanitize(t.Action)
	}
	if !t.Started.IsZero() {
		line += " · " + m.now().Sub(t.Started).Round(time.Second).String()
	}
	return line
}

// fetchOutput reads the end of a task's output in the background.
func (m *model) fetchOutput(id string) tea.Cmd {
	tc, ok := m.sess.(TaskControl)
	if !ok {
		return nil
	}
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		out, err := tc.TaskOutput(ctx, id, taskOutputMax)
		return taskOutputMsg{task: id, output: out, err: err}
	}
}

// stopTask stops the task id (the list's selection or the one shown).
func (m *model) stopTask(id string) tea.Cmd {
	tc, ok := m.sess.(TaskControl)
	if !ok || id == "" {
		return nil
	}
	m.notice = "Stopping " + id + "…"
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := tc.StopTask(ctx, id); err != nil {
			return taskOutputMsg{task: id, err: fmt.Errorf("stop: %w", err)}
		}
		return nil
	}
}

// overlayKey handles a key while an overlay is open.
func (m *model) overlayKey(key string) tea.Cmd {
	ov := m.ov
	switch key {
	case "esc", "ctrl+c", "q":
		if ov.kind == overlayTaskOutput {
			m.openTasks()
			return nil
		}
		m.ov = nil
	case "up":
		ov.sel = max(ov.sel-1, 0)
	case "down":
		ov.sel = min(ov.sel+1, max(len(ov.items)-1, 0))
	case "k", "x": // k as in Claude Code's task dialog
		return m.overlayStop()
	case "r":
		if ov.kind == overlayTaskOutput {
			return m.fetchOutput(ov.task)
		}
	case "enter":
		if len(ov.items) == 0 {
			m.ov = nil
			return nil
		}
		id := ov.items[min(ov.sel, len(ov.items)-1)].id
		switch ov.kind {
		case overlayResume:
			return m.switchTo(id)
		case overlayTasks:
			m.ov = &overlay{kind: overlayTaskOutput, task: id, output: "(reading the output…)"}
			return m.fetchOutput(id)
		}
	}
	return nil
}

// overlayStop stops the task selected in the list or shown.
func (m *model) overlayStop() tea.Cmd {
	ov := m.ov
	switch {
	case ov.kind == overlayTaskOutput:
		return m.stopTask(ov.task)
	case ov.kind == overlayTasks && len(ov.items) > 0:
		return m.stopTask(ov.items[min(ov.sel, len(ov.items)-1)].id)
	}
	return nil
}

// overlayView renders the open overlay.
func (m *model) overlayView() string {
	ov, st, w := m.ov, m.st, m.width
	var rows []string
	add := func(s string) { rows = append(rows, truncate(s, w)) }
	list := func(title, empty, help string) {
		add(st.accent.Render(title))
		if len(ov.items) == 0 {
			add(st.dim.Render("  " + empty))
		}
		first := max(0, min(ov.sel-overlayRows+1, len(ov.items)-overlayRows))
		for i := first; i < len(ov.items) && i < first+overlayRows; i++ {
			if i == ov.sel {
				add(st.selected.Render("❯ " + ov.items[i].line))
			} else {
				add("  " + ov.items[i].line)
			}
		}
		add(st.dim.Render(help))
	}
	switch ov.kind {
	case overlayResume:
		list("Resume a session", "No other session in this project", "↑/↓ select · enter resume · esc cancel")
	case overlayTasks:
		list("Background tasks", "No task is running", "↑/↓ select · enter view output · k stop · esc close")
	case overlayTaskOutput:
		title := ov.task
		if t := m.tasks[ov.task]; t != nil {
			title = m.taskLine(t)
		} else {
			title += " · ended"
		}
		add(st.accent.Render(title))
		out := strings.Split(strings.TrimRight(Sanitize(ov.output), "\n"), "\n")
		if len(out) > overlayRows {
			out = out[len(out)-overlayRows:]
		}
		for _, l := range out {
			add("  " + l)
		}
		add(st.dim.Render("k stop · r refresh · esc back"))
	}
	if ov.err != "" {
		add(st.bad.Render(ov.err))
	}
	return strings.Join(rows, "\n")
}

// overlayMsg handles the overlays' background results.
func (m *model) overlayMsg(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case resumeListMsg:
		if msg.err != nil {
			m.print(m.st.bad.Render("  ⎿  /resume: " + Sanitize(msg.err.Error())))
			return nil
		}
		m.ov = &overlay{kind: overlayResume, items: msg.items}
	case taskOutputMsg:
		m.notice = ""
		if m.ov == nil || m.ov.task != msg.task && m.ov.kind == overlayTaskOutput {
			if msg.err != nil {
				m.notice = "!" + Sanitize(msg.err.Error())
			}
			return nil
		}
		if msg.err != nil {
			m.ov.err = Sanitize(msg.err.Error())
			return nil
		}
		if m.ov.kind == overlayTaskOutput {
			m.ov.output, m.ov.err = msg.output, ""
			if m.ov.output == "" {
				m.ov.output = "(no output yet)"
			}
		}
	}
	return nil
}

// taskChanged keeps an open task view current: the list follows the running tasks; the
// output shown is read again when its task ends.
func (m *model) taskChanged(t *Task) tea.Cmd {
	switch {
	case m.ov == nil:
	case m.ov.kind == overlayTasks:
		sel := ""
		if len(m.ov.items) > 0 {
			sel = m.ov.items[min(m.ov.sel, len(m.ov.items)-1)].id
		}
		m.openTasks()
		for i, it := range m.ov.items {
			if it.id == sel {
				m.ov.sel = i
			}
		}
	case m.ov.kind == overlayTaskOutput && m.ov.task == t.ID && t.Terminal:
		return m.fetchOutput(t.ID)
	}
	return nil
}

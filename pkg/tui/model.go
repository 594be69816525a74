package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// Message types the model receives besides the terminal's.
type (
	eventMsg     Event
	closedMsg    struct{}
	tickMsg      time.Time
	printedFlush struct{}
)

// modes are the permission modes Shift+Tab cycles through, as Claude Code does.
var modes = []string{"default", "acceptEdits", "plan"}

// spinnerFrames animate a running tool or answer.
var spinnerFrames = []string{"·", "✢", "✳", "✶", "✻", "✽"}

// quitWindow is how long a first Ctrl-C on an empty prompt waits for the second.
const quitWindow = 2 * time.Second

// model is the UI's state. Finished output is handed to out (the scrollback) once;
// View renders only the live part: the answer being streamed, running tools, the
// permission prompt, queued prompts, the prompt box and the status line.
type model struct {
	sess Session
	info Info
	out  *printer
	st   styles
	md   markdown
	now  func() time.Time
	hist *history

	width, height int
	ed            editor
	histPos       int // -1 when not browsing the history
	histDraft     string

	// running is the prompt being answered; queue the prompts typed meanwhile.
	running   string
	queue     []string
	streaming strings.Builder
	thinking  strings.Builder
	tools     []*Tool // running tool calls, in start order
	spin      int
	ticking   bool

	perm       *Permission
	permSel    int
	permTyping bool // option 3 chosen: the prompt box holds what to tell the model
	permDraft  string

	commands []Command
	compSel  int
	files    fileCompleter

	mode        string
	ctx         ContextState
	tokens      int
	tasks       map[string]*Task
	ctrlCAt     time.Time
	notice      string
	lastFull    string // the last collapsed output, for Ctrl-O
	lastThought string
	quitting    bool
	started     bool   // the banner is printed
	lost        bool   // the session's events ended
	initial     string // the prompt given on the command line, sent after the banner

	ov *overlay // the /resume picker or the task view, when open
	// open opens a stored session for /resume (nil: switching is not offered); attach
	// makes a session's events flow to the model, tagged with gen (the session in use:
	// events of a session switched away from are dropped).
	open   func(ctx context.Context, id string) (Session, error)
	attach func(s Session, gen int)
	gen    int
	// pickAtStart opens the /resume picker after the banner (robota --resume, no id).
	pickAtStart bool
	// printedWidth is the width the screen was last painted at; resizeSeq counts width
	// changes (only the last one's settle repaints).
	printedWidth, resizeSeq int
}

// resizeSettle is how long the width must stay put before the screen is repainted.
const resizeSettle = 120 * time.Millisecond

// resizeSettledMsg ends the wait after the seq-th width change.
type resizeSettledMsg struct{ seq int }

// sessionMsg is a session's event or end, tagged with the session's generation.
type sessionMsg struct {
	gen int
	msg tea.Msg
}

// uiCommands are the commands the UI itself runs, offered with the session's.
var uiCommands = []Command{
	{Name: "exit", Description: "Exit robota", Source: "ui"},
	{Name: "tasks", Description: "Background tasks and subagents: view one's output, stop it", Source: "ui"},
}

func newModel(sess Session, out *printer, st styles, hist *history, now func() time.Time) *model {
	info := sess.Info()
	m := &model{sess: sess, info: info, out: out, st: st, md: markdown{color: st.color}, now: now, hist: hist,
		width: 80, height: 24, histPos: -1, mode: info.PermissionMode, tasks: map[string]*Task{}}
	m.commands = append(sess.Commands(), uiCommands...)
	m.files.root = info.Cwd
	m.ctx = sess.Context()
	return m
}

// Init prints nothing: the banner waits for the terminal's size (first WindowSizeMsg).
func (m *model) Init() tea.Cmd { return nil }

func (m *model) banner() string {
	st := m.st
	w := m.width
	lines := []string{
		st.accent.Render("✻") + " Welcome to " + st.user.Render("robota"),
		st.dim.Render(wrap("  cwd: "+Sanitize(m.info.Cwd), w)),
		st.dim.Render(wrap("  /help for commands · shift+tab cycles the permission mode · esc interrupts", w)),
	}
	if len(m.info.Previous) > 0 {
		lines = append(lines, m.resumedBanner())
	}
	return strings.Join(lines, "\n")
}

// resumedBanner says which session was resumed and shows its last turns.
func (m *model) resumedBanner() string {
	lines := []string{m.st.dim.Render(wrap(fmt.Sprintf("  resumed session %s", m.info.ID), m.width))}
	for _, t := range m.info.Previous {
		if t.User {
			lines = append(lines, m.userLine(t.Text))
		} else {
			lines = append(lines, m.renderAnswer(t.Text))
		}
	}
	return strings.Join(lines, "\n")
}

// print hands finished output to the scrollback, in order.
func (m *model) print(s string) { m.out.print(s) }

func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		resized := m.started && (msg.Width != m.width || msg.Height != m.height)
		m.width, m.height = max(msg.Width, 1), max(msg.Height, 1)
		if !m.started {
			m.started = true
			m.printedWidth = m.width
			m.print(m.banner())
			if d, ok := m.sess.(*Deferred); ok {
				// The renderer writes this frame on its next tick: the session's
				// assembly starts after it (on two cores it would delay the frame).
				time.AfterFunc(firstFrameGrace, d.begin)
			}
			if m.pickAtStart {
				m.pickAtStart = false
				return m, m.openResume()
			}
			if p := m.initial; strings.TrimSpace(p) != "" {
				m.initial = ""
				m.hist.add(p)
				if name, args, ok := splitCommand(p); ok {
					return m, m.command(name, args, p)
				}
				return m, m.submit(p)
			}
		}
		if resized && msg.Width != m.printedWidth {
			// The terminal rewrapped (or cut) the screen at the new width, the live
			// area's old rows among it: once the size settles (a drag sends many),
			// everything printed is written again on a cleared screen.
			m.resizeSeq++
			seq := m.resizeSeq
			return m, tea.Tick(resizeSettle, func(time.Time) tea.Msg { return resizeSettledMsg{seq: seq} })
		}
		if resized {
			return m, tea.ClearScreen
		}
	case resizeSettledMsg:
		if msg.seq == m.resizeSeq && m.width != m.printedWidth {
			m.printedWidth = m.width
			m.out.reprint()
		}
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case tea.PasteMsg:
		if m.perm == nil || m.permTyping {
			m.ed.Paste(msg.Content)
			m.compSel = 0
		}
	case sessionMsg:
		if msg.gen != m.gen {
			return m, nil // a session switched away from
		}
		return m.Update(msg.msg)
	case resumeListMsg, taskOutputMsg:
		return m, m.overlayMsg(msg)
	case switchedMsg:
		return m, m.switched(msg)
	case eventMsg:
		return m, m.event(Event(msg))
	case tickMsg:
		if !m.busy() {
			m.ticking = false
			return m, nil
		}
		m.spin++
		return m, tick()
	case closedMsg:
		// The session's events ended (an engine that went away, a closed session):
		// said on screen, what was typed stays in the prompt box, Ctrl-R reconnects
		// where the session offers it, Ctrl-D quits.
		if !m.quitting {
			m.lost = true
			m.running, m.tools, m.perm = "", nil, nil
			m.flushAnswer(m.st.bad.Render("  ⎿  Connection to the session lost"))
			m.notice = "!The session is gone (engine stopped or connection lost); Ctrl-D quits, your input is kept"
			if _, ok := m.sess.(Reconnector); ok {
				m.notice = "!Connection to the engine lost: Ctrl-R reconnects (your input is kept), Ctrl-D quits"
			}
		}
	case reconnectedMsg:
		return m, m.reconnected(msg.err)
	}
	return m, nil
}

func (m *model) busy() bool { return m.running != "" || len(m.tools) > 0 || len(m.tasks) > 0 }

func tick() tea.Cmd {
	return tea.Tick(120*time.Millisecond, func(t time.Time) tea.Msg { return tickMsg(t) })
}

func (m *model) startTicking() tea.Cmd {
	if m.ticking {
		return nil
	}
	m.ticking = true
	return tick()
}

func (m *model) quit() tea.Cmd {
	if m.quitting {
		return nil
	}
	m.quitting = true
	m.flushAnswer("")
	m.out.quit()
	return nil
}

func (m *model) key(k tea.KeyPressMsg) tea.Cmd {
	key := k.String()
	if key != "ctrl+c" {
		m.ctrlCAt = time.Time{}
		if m.notice != "" && !strings.HasPrefix(m.notice, "!") {
			m.notice = ""
		}
	}
	if m.perm != nil && !m.permTyping {
		return m.permissionKey(key)
	}
	if m.ov != nil {
		return m.overlayKey(key)
	}
	switch key {
	case "ctrl+r":
		return m.reconnect()
	case "ctrl+c":
		return m.ctrlC()
	case "ctrl+d":
		if m.ed.Empty() {
			return m.quit()
		}
		m.ed.Delete()
	case "esc":
		return m.escape()
	case "enter":
		if m.completing() && len(m.matches()) > 0 {
			c := m.matches()[min(m.compSel, len(m.matches())-1)]
			m.ed.SetText("/" + c.Name)
		}
		if c := m.ed.cursor; c > 0 && m.ed.buf[c-1] == '\\' {
			m.ed.Backspace()
			m.ed.Insert("\n")
			return nil
		}
		return m.enter()
	case "shift+enter", "ctrl+j", "alt+enter":
		m.ed.Insert("\n")
	case "shift+tab":
		m.cycleMode()
	case "tab":
		if list := m.fileMatches(); len(list) > 0 {
			m.ed.completeAt(list[min(m.compSel, len(list)-1)])
			m.compSel = 0
			return nil
		}
		if m.completing() && len(m.matches()) > 0 {
			c := m.matches()[min(m.compSel, len(m.matches())-1)]
			m.ed.SetText("/" + c.Name + " ")
		}
	case "ctrl+o":
		m.expand()
	case "up":
		switch {
		case m.completing() || len(m.fileMatches()) > 0:
			m.compSel = max(m.compSel-1, 0)
		case m.ed.Empty() && len(m.queue) > 0:
			m.ed.SetText(m.queue[len(m.queue)-1]) // edit the queued prompt
			m.queue = m.queue[:len(m.queue)-1]
		case m.ed.OnFirstLine():
			m.historyPrev()
		default:
			m.ed.Up()
		}
	case "down":
		switch {
		case len(m.fileMatches()) > 0:
			m.compSel = min(m.compSel+1, len(m.fileMatches())-1)
		case m.completing():
			m.compSel = min(m.compSel+1, max(len(m.matches())-1, 0))
		case m.ed.OnLastLine():
			m.historyNext()
		default:
			m.ed.Down()
		}
	case "left", "ctrl+b":
		m.ed.Left()
	case "right", "ctrl+f":
		m.ed.Right()
	case "home", "ctrl+a":
		m.ed.Home()
	case "end", "ctrl+e":
		m.ed.End()
	case "backspace", "ctrl+h":
		m.ed.Backspace()
		m.compSel = 0
	case "delete":
		m.ed.Delete()
	case "ctrl+k":
		m.ed.KillEnd()
	case "ctrl+u":
		m.ed.KillStart()
	case "ctrl+w", "alt+backspace":
		m.ed.KillWord()
	default:
		if k.Text != "" && k.Mod&^tea.ModShift == 0 {
			m.ed.Insert(k.Text)
			m.compSel = 0
		}
	}
	return nil
}

func (m *model) ctrlC() tea.Cmd {
	if !m.ed.Empty() {
		m.ed.Reset()
		m.histPos = -1
		return nil
	}
	if m.running != "" {
		m.interrupt()
	}
	if !m.ctrlCAt.IsZero() && m.now().Sub(m.ctrlCAt) < quitWindow {
		return m.quit()
	}
	m.ctrlCAt = m.now()
	m.notice = "Press Ctrl-C again to exit"
	return nil
}

func (m *model) escape() tea.Cmd {
	switch {
	case m.permTyping:
		m.answer(Deny, "")
	case m.running != "":
		m.interrupt()
	case m.completing():
		m.ed.Reset()
	}
	return nil
}

// interrupt aborts the running prompt; queued prompts come back to the prompt box to be
// edited, as Claude Code does.
func (m *model) interrupt() {
	if err := m.sess.Abort(); err != nil {
		m.print(m.st.bad.Render("Interrupt failed: " + err.Error()))
	}
	if len(m.queue) > 0 && m.ed.Empty() {
		m.ed.SetText(strings.Join(m.queue, "\n"))
		m.queue = nil
	}
}

func (m *model) cycleMode() {
	next := modes[0]
	for i, md := range modes {
		if md == m.mode {
			next = modes[(i+1)%len(modes)]
		}
	}
	if err := m.sess.SetPermissionMode(next); err != nil {
		m.notice = "!" + err.Error()
		return
	}
	m.mode = next
}

func (m *model) expand() {
	if m.lastFull == "" && m.lastThought == "" {
		return
	}
	if m.lastThought != "" {
		m.print(m.st.dim.Render("✻ Thinking\n" + wrap(Sanitize(m.lastThought), m.width)))
	}
	if m.lastFull != "" {
		m.print(wrap(m.lastFull, m.width))
	}
	m.lastFull, m.lastThought = "", ""
}

func (m *model) enter() tea.Cmd {
	text := m.ed.Value()
	if strings.TrimSpace(text) == "" {
		return nil
	}
	if m.permTyping { // option 3's message
		m.ed.Reset()
		m.answer(Deny, text)
		return nil
	}
	m.ed.Reset()
	m.histPos = -1
	m.hist.add(text)
	if name, args, ok := splitCommand(text); ok {
		return m.command(name, args, text)
	}
	if m.running != "" {
		m.queue = append(m.queue, text)
		return nil
	}
	return m.submit(text)
}

func (m *model) submit(text string) tea.Cmd {
	if m.lost {
		m.ed.SetText(text)
		return nil
	}
	m.print(m.userLine(text))
	id, err := m.sess.Submit(text)
	if err != nil {
		m.print(m.st.bad.Render("  ⎿  " + err.Error()))
		return nil
	}
	m.running = id
	return m.startTicking()
}

func (m *model) userLine(text string) string {
	lines := strings.Split(Sanitize(text), "\n")
	for i, l := range lines {
		p := "  "
		if i == 0 {
			p = "> "
		}
		lines[i] = m.st.user.Render(truncate(p+l, m.width))
	}
	return strings.Join(lines, "\n")
}

// splitCommand parses "/name args"; a path such as /tmp/x is not a command.
func splitCommand(text string) (name, args string, ok bool) {
	if !strings.HasPrefix(text, "/") {
		return "", "", false
	}
	name, args, _ = strings.Cut(strings.TrimPrefix(text, "/"), " ")
	if name == "" || strings.ContainsAny(name, "/\n") {
		return "", "", false
	}
	return name, strings.TrimSpace(args), true
}

func (m *model) command(name, args, text string) tea.Cmd {
	switch name {
	case "exit", "quit":
		return m.quit()
	case "tasks", "bashes":
		m.openTasks()
		return nil
	case "resume":
		if m.running != "" {
			break // queued like any command
		}
		m.print(m.userLine(text))
		if args != "" {
			return m.switchTo(args)
		}
		return m.openResume()
	}
	if m.running != "" {
		m.queue = append(m.queue, text)
		return nil
	}
	m.print(m.userLine(text))
	res, err := m.sess.Execute(context.Background(), name, args)
	switch {
	case errors.Is(err, ErrUnknownCommand):
		m.print(m.st.bad.Render("  ⎿  Unknown command: /" + name))
		return nil
	case err != nil:
		m.print(m.st.bad.Render("  ⎿  " + err.Error()))
		return nil
	case res.Prompt != "" && res.Success:
		id, err := m.sess.Submit(res.Prompt)
		if err != nil {
			m.print(m.st.bad.Render("  ⎿  " + err.Error()))
			return nil
		}
		m.running = id
		return m.startTicking()
	}
	style := m.st.dim
	if !res.Success {
		style = m.st.bad
	}
	m.print(indented(style.Render("  ⎿  "), Sanitize(res.Message), m.width))
	if name == "mode" && res.Success && args != "" {
		m.mode = args
	}
	if name == "model" || name == "clear" || name == "compact" || name == "reset" {
		m.info.Model = m.sess.Info().Model
		m.ctx = m.sess.Context()
	}
	return nil
}

// completing reports whether the slash completion list is open: while a command's name
// is typed, and while the first argument of a command with subcommands is typed and
// some of them match (any other argument is still accepted as typed).
func (m *model) completing() bool {
	t := m.ed.Text()
	if m.perm != nil || !strings.HasPrefix(t, "/") || strings.Contains(t, "\n") {
		return false
	}
	if !strings.Contains(t, " ") {
		return true
	}
	return len(m.subcommandMatches(t)) > 0
}

// subcommandMatches are the completions of the first argument t is typing ("/mode pl":
// "/mode plan"), as commands named "name choice". Nothing before the argument's first
// character: "/language " and Enter still shows the setting rather than choosing.
func (m *model) subcommandMatches(t string) []Command {
	name, arg, ok := strings.Cut(strings.TrimPrefix(t, "/"), " ")
	if !ok || arg == "" || strings.Contains(arg, " ") {
		return nil
	}
	var out []Command
	for _, c := range m.commands {
		if c.Name != name {
			continue
		}
		for _, sub := range c.Subcommands {
			if strings.HasPrefix(strings.ToLower(sub), strings.ToLower(arg)) {
				out = append(out, Command{Name: name + " " + sub})
			}
		}
	}
	return out
}

// fileMatches are the @ completions of the word at the cursor (nil when there is none).
func (m *model) fileMatches() []string {
	if m.perm != nil {
		return nil
	}
	if _, word, ok := m.ed.atWord(); ok {
		return m.files.complete(word)
	}
	return nil
}

func (m *model) matches() []Command {
	if strings.Contains(m.ed.Text(), " ") {
		return m.subcommandMatches(m.ed.Text())
	}
	prefix := strings.TrimPrefix(m.ed.Text(), "/")
	var out []Command
	for _, c := range m.commands {
		if strings.HasPrefix(c.Name, prefix) {
			out = append(out, c)
		}
	}
	return out
}

func (m *model) historyPrev() {
	entries := m.hist.entries()
	if len(entries) == 0 {
		return
	}
	if m.histPos == -1 {
		m.histDraft = m.ed.Text()
		m.histPos = len(entries)
	}
	if m.histPos > 0 {
		m.histPos--
		m.ed.SetText(entries[m.histPos])
	}
}

func (m *model) historyNext() {
	if m.histPos == -1 {
		return
	}
	entries := m.hist.entries()
	m.histPos++
	if m.histPos >= len(entries) {
		m.histPos = -1
		m.ed.SetText(m.histDraft)
		return
	}
	m.ed.SetText(entries[m.histPos])
}

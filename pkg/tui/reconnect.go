package tui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"
)

// Reconnector is a session whose connection can be made again after it was lost (a
// session in an engine). The UI offers Ctrl-R while the session is lost.
type Reconnector interface {
	Reconnect(ctx context.Context) error
}

// reconnectWait bounds one reconnection attempt.
const reconnectWait = 15 * time.Second

type reconnectedMsg struct{ err error }

// reconnect tries to connect the lost session again, in the background.
func (m *model) reconnect() tea.Cmd {
	rc, ok := m.sess.(Reconnector)
	if !m.lost || !ok {
		return nil
	}
	m.notice = "Reconnecting…"
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), reconnectWait)
		defer cancel()
		return reconnectedMsg{err: rc.Reconnect(ctx)}
	}
}

// reconnected resumes the UI over the session's new connection: its events flow again
// (a new generation) and what was typed is still in the prompt box.
func (m *model) reconnected(err error) tea.Cmd {
	if err != nil {
		m.notice = "!Reconnect failed: " + Sanitize(err.Error()) + " (Ctrl-R tries again, Ctrl-D quits)"
		return nil
	}
	m.lost, m.notice = false, ""
	m.gen++
	if m.attach != nil {
		m.attach(m.sess, m.gen)
	}
	m.ctx = m.sess.Context()
	m.print(m.st.dim.Render("  ⎿  Reconnected to the engine"))
	return nil
}

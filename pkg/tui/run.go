package tui

import (
	"context"
	"io"
	"os"
	"time"

	tea "charm.land/bubbletea/v2"
)

// Options configure Run.
type Options struct {
	In  io.Reader
	Out io.Writer
	// HistoryFile holds the prompt history ("" keeps it in memory only).
	HistoryFile string
	// NoColor renders without colours (NO_COLOR, a dumb terminal).
	NoColor bool
	// Env is the terminal's environment (nil: the process's).
	Env []string
	// Prompt, when set, is submitted at the start (robota "PROMPT", as claude "PROMPT").
	Prompt string
}

// Run shows the UI over sess until the user quits, then closes sess (saving it).
func Run(ctx context.Context, sess Session, o Options) error {
	out := newPrinter()
	m := newModel(sess, out, newStyles(!o.NoColor), loadHistory(o.HistoryFile, sess.Info().Cwd), time.Now)
	m.initial = o.Prompt
	opts := []tea.ProgramOption{tea.WithContext(ctx)}
	if o.In != nil {
		opts = append(opts, tea.WithInput(o.In))
	}
	if o.Out != nil {
		opts = append(opts, tea.WithOutput(o.Out))
	}
	if o.Env != nil {
		opts = append(opts, tea.WithEnvironment(o.Env))
	}
	p := tea.NewProgram(m, opts...)
	stop := make(chan struct{})
	go out.run(p.Send, stop)
	go func() {
		for e := range sess.Events() {
			p.Send(eventMsg(e))
		}
		p.Send(closedMsg{})
	}()
	_, err := p.Run()
	close(stop)
	<-out.done
	w := o.Out
	if w == nil {
		w = os.Stdout
	}
	for _, s := range out.drain() {
		io.WriteString(w, s+"\n") //nolint:errcheck
	}
	closeCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if cerr := sess.Close(closeCtx); err == nil {
		err = cerr
	}
	return err
}

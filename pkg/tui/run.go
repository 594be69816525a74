package tui

import (
	"context"
	"io"
	"os"
	"slices"
	"strings"
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
	// Open opens a stored session of the project by id or name, for /resume; nil: the
	// UI does not offer switching sessions.
	Open func(ctx context.Context, idOrName string) (Session, error)
	// PickSession opens the /resume picker at the start (robota --resume without an id).
	PickSession bool
	// Ended, when set, is told the id of the session in use at the end.
	Ended func(id string)
}

// Run shows the UI over sess until the user quits, then closes sess (saving it).
func Run(ctx context.Context, sess Session, o Options) error {
	out := newPrinter()
	m := newModel(sess, out, newStyles(!o.NoColor), loadHistory(o.HistoryFile, sess.Info().Cwd), time.Now)
	m.initial = o.Prompt
	m.open = o.Open
	m.pickAtStart = o.PickSession && o.Open != nil
	opts := []tea.ProgramOption{tea.WithContext(ctx)}
	if o.In != nil {
		opts = append(opts, tea.WithInput(o.In))
	}
	if o.Out != nil {
		opts = append(opts, tea.WithOutput(o.Out))
	}
	env := o.Env
	if env == nil {
		env = os.Environ()
	}
	// Without TMUX the colour detection asks no `tmux info` (a process start, twice,
	// before the first frame); the UI's colours are the 16 basic ones, which every
	// terminal tmux runs in has.
	opts = append(opts, tea.WithEnvironment(slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		return strings.HasPrefix(kv, "TMUX=")
	})))
	p := tea.NewProgram(m, opts...)
	stop := make(chan struct{})
	go out.run(p.Send, stop)
	// Each session's events flow tagged with its generation: after a /resume switch, what
	// the old session still sends is dropped.
	m.attach = func(s Session, gen int) {
		go func() {
			for e := range s.Events() {
				p.Send(sessionMsg{gen: gen, msg: eventMsg(e)})
			}
			p.Send(sessionMsg{gen: gen, msg: closedMsg{}})
		}()
	}
	m.attach(sess, m.gen)
	_, err := p.Run()
	sess = m.sess // the session in use at the end (a /resume may have switched)
	if o.Ended != nil {
		o.Ended(sess.Info().ID)
	}
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

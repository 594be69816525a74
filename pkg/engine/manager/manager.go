package manager

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/assemble"
	"github.com/robota-sdk/robota-go/pkg/engine/contextwin"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/config"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/permission"
	"github.com/robota-sdk/robota-go/pkg/runner/tasks"
)

// Config configures a Manager.
type Config struct {
	// Home is the user's home for settings (empty: os.UserHomeDir); Env resolves
	// environment variables (nil: the process environment).
	Home string
	Env  config.Env
	// StateDir keeps the engine's own state (the projects it served); empty means
	// nothing is remembered across restarts.
	StateDir string
	// Interactive configures every session (permission timeout, delivery bounds).
	Interactive interactive.InteractiveOptions
	// Runner runs every session's subagents and background commands (the engine's
	// worker pool); nil: sessions have neither.
	Runner tasks.Runner
	// MaxBackgroundTasks bounds each session's subagents and background commands
	// running at once (0: tasks.DefaultMaxConcurrent). Remote dispatch raises it: the
	// host agents' slots bound the work, not the engine's cores.
	MaxBackgroundTasks int
	// Now stamps the sessions' times; nil means time.Now.
	Now func() time.Time
	// MaxLive bounds the live sessions (each holds files, a log and perhaps MCP server
	// processes): past it Create fails with ErrTooManySessions before descriptors run out
	// for everyone. 0 means DefaultMaxLive.
	MaxLive int
}

// DefaultMaxLive is the live-session limit when Config.MaxLive is 0.
const DefaultMaxLive = 256

// CreateOptions are a new session's options (the proto's CreateSessionRequest in Go).
type CreateOptions struct {
	Cwd, Provider, Model, Script, PermissionMode string
	Allow, Deny                                  []string
	AppendSystemPrompt                           string
	MaxTurns                                     int
	// Resume names a stored (or live) session by id, or a stored one by its name
	// (/rename); Continue takes the newest of Cwd; Fork copies either under a new id.
	Resume         string
	Continue, Fork bool
}

// Live is a session loaded in the engine.
type Live struct {
	*interactive.InteractiveSession
	Cwd string
	now func() time.Time

	mu      sync.Mutex
	created time.Time
	updated time.Time
}

// Submit submits prompt (InteractiveSession.Submit) and stamps the session's activity.
func (l *Live) Submit(prompt string) (interactive.Submitted, error) {
	s, err := l.InteractiveSession.Submit(prompt)
	if err == nil {
		l.mu.Lock()
		l.updated = l.now()
		l.mu.Unlock()
	}
	return s, err
}

// Info describes a live or stored session.
type Info struct {
	ID, Cwd, Provider, Model, PermissionMode, Title string
	// Name is the session's name (/rename), "" when it has none.
	Name                 string
	CreatedAt, UpdatedAt time.Time
	MessageCount         int
	Running, Live        bool
	// Context is the window usage of a live session (nil for a stored one).
	Context *contextwin.WindowState
	// Tools and APIKeySource are a live session's tool names and credential source
	// (what robota -p prints in system/init); empty for a stored one.
	Tools        []string
	APIKeySource string
	// Sandbox is a live session's command sandbox state ("on", "off", "unavailable").
	Sandbox string
}

// Manager owns the live sessions.
type Manager struct {
	cfg Config

	mu       sync.Mutex
	live     map[string]*Live
	loading  map[string]chan struct{} // ids being resumed; closed when done
	opening  int                      // sessions being created or loaded: slots of MaxLive
	projects *projects
	closed   bool
}

// New returns a Manager. It reads the remembered projects from cfg.StateDir.
func New(cfg Config) (*Manager, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	p, err := loadProjects(cfg.StateDir)
	if err != nil {
		return nil, err
	}
	return &Manager{cfg: cfg, live: map[string]*Live{}, loading: map[string]chan struct{}{}, projects: p}, nil
}

// Create starts, resumes, forks or continues a session and makes it live.
func (m *Manager) Create(ctx context.Context, o CreateOptions) (*Live, error) {
	if err := m.validate(&o); err != nil {
		return nil, err
	}
	// Resolve --continue to an id here, so that a live session is never loaded twice.
	if o.Resume == "" && o.Continue {
		id, err := latestStored(ctx, m.cfg.Home, o.Cwd)
		if err != nil {
			return nil, err
		}
		o.Resume, o.Continue = id, false
	}
	if o.Resume != "" {
		m.mu.Lock()
		live := m.live[o.Resume] != nil
		m.mu.Unlock()
		if !live {
			id, err := resolveStored(ctx, m.cfg.Home, o.Cwd, o.Resume)
			if err != nil {
				return nil, err
			}
			o.Resume = id
		}
	}
	// One load per session id: a second resume of an id being loaded waits for the first
	// (two copies would both write the record and the log).
	m.mu.Lock()
	for {
		if m.closed {
			m.mu.Unlock()
			return nil, ErrShuttingDown
		}
		if o.Resume == "" || o.Fork {
			break
		}
		if l := m.live[o.Resume]; l != nil {
			m.mu.Unlock()
			return l, nil
		}
		wait, loading := m.loading[o.Resume]
		if !loading {
			done := make(chan struct{})
			m.loading[o.Resume] = done
			defer func(id string) {
				m.mu.Lock()
				delete(m.loading, id)
				m.mu.Unlock()
				close(done)
			}(o.Resume)
			break
		}
		m.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		m.mu.Lock()
	}
	// A slot for the new live session, held while it loads.
	if max := m.maxLive(); len(m.live)+m.opening >= max {
		m.mu.Unlock()
		return nil, fmt.Errorf("%w: %d sessions are live (the engine's limit, --max-sessions); close one first", ErrTooManySessions, max)
	}
	m.opening++
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		m.opening--
		m.mu.Unlock()
	}()
	if o.Resume != "" {
		if err := storedExists(ctx, m.cfg.Home, o.Cwd, o.Resume); err != nil {
			return nil, err
		}
	}
	is, err := assemble.New(context.WithoutCancel(ctx), assemble.Options{
		Cwd: o.Cwd, Home: m.cfg.Home, Env: m.cfg.Env,
		Provider: o.Provider, Model: o.Model, Script: o.Script, PermissionMode: o.PermissionMode,
		Allow: o.Allow, Deny: o.Deny, MaxTurns: o.MaxTurns, AppendSystemPrompt: o.AppendSystemPrompt,
		Resume: o.Resume, Fork: o.Fork, Now: m.cfg.Now, Interactive: m.cfg.Interactive, Runner: m.cfg.Runner,
		MaxBackgroundTasks: m.cfg.MaxBackgroundTasks,
	})
	if err != nil {
		return nil, classify(o, err)
	}
	now := m.cfg.Now()
	l := &Live{InteractiveSession: is, Cwd: o.Cwd, now: m.cfg.Now, created: now, updated: now}
	if rec := is.Session().Record(); !rec.CreatedAt.IsZero() {
		l.created = rec.CreatedAt
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		_ = is.Close(ctx, "other")
		return nil, ErrShuttingDown
	}
	m.live[is.ID()] = l
	m.mu.Unlock()
	if err := m.projects.add(o.Cwd); err != nil {
		return l, nil // the session runs; only the listing after a restart would miss it
	}
	return l, nil
}

func (m *Manager) maxLive() int {
	if m.cfg.MaxLive > 0 {
		return m.cfg.MaxLive
	}
	return DefaultMaxLive
}

// validate checks what Assemble would reject with a less precise message.
func (m *Manager) validate(o *CreateOptions) error {
	switch {
	case o.Cwd == "":
		return fieldErr("Cwd", "required: the session's working directory (absolute)")
	case !filepath.IsAbs(o.Cwd):
		return fieldErr("Cwd", "%q is not absolute", o.Cwd)
	}
	o.Cwd = filepath.Clean(o.Cwd)
	if st, err := os.Stat(o.Cwd); err != nil || !st.IsDir() {
		return fieldErr("Cwd", "%s is not a directory", o.Cwd)
	}
	if _, err := permission.ParseMode(o.PermissionMode); err != nil {
		return &FieldError{Field: "PermissionMode", Err: err}
	}
	for _, f := range []struct {
		name  string
		rules []string
	}{{"Allow", o.Allow}, {"Deny", o.Deny}} {
		if _, err := permission.Rules(permission.Layer{Source: permission.Source{Name: f.name}, Allow: f.rules}); err != nil {
			return &FieldError{Field: f.name, Err: err}
		}
	}
	if o.Script != "" {
		if o.Provider == "" {
			o.Provider = "script"
		}
		if !filepath.IsAbs(o.Script) {
			o.Script = filepath.Join(o.Cwd, o.Script)
		}
		if _, err := os.Stat(o.Script); err != nil {
			return &FieldError{Field: "Script", Err: err}
		}
	}
	if o.Fork && o.Resume == "" && !o.Continue {
		return fieldErr("Fork", "needs Resume or Continue: there is no session to fork")
	}
	return nil
}

// classify turns Assemble's errors into FieldErrors where the option is known.
func classify(o CreateOptions, err error) error {
	switch {
	case errors.Is(err, assemble.ErrUnknownProviderType) && o.Provider != "":
		return &FieldError{Field: "Provider", Err: err}
	case errors.Is(err, assemble.ErrNoProvider):
		return &FieldError{Field: "Provider", Err: err}
	case errors.Is(err, assemble.ErrNoSessionToContinue):
		return fmt.Errorf("%w: %w", ErrNotFound, err)
	}
	return err
}

// Get returns the live session id.
func (m *Manager) Get(id string) (*Live, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if l := m.live[id]; l != nil {
		return l, nil
	}
	return nil, fmt.Errorf("%w: %q is not live in this engine", ErrNotFound, id)
}

// Info describes the session id, live or stored.
func (m *Manager) Info(ctx context.Context, id string) (Info, error) {
	if l, err := m.Get(id); err == nil {
		return m.liveInfo(l), nil
	}
	for _, cwd := range m.projects.list() {
		infos, err := storedInfos(ctx, m.cfg.Home, cwd)
		if err != nil {
			continue
		}
		for _, in := range infos {
			if in.ID == id {
				return in, nil
			}
		}
	}
	return Info{}, fmt.Errorf("%w: %q", ErrNotFound, id)
}

// List returns the live and stored sessions of cwd (every project the engine served
// when cwd is empty), newest first.
func (m *Manager) List(ctx context.Context, cwd string) ([]Info, error) {
	if cwd != "" && !filepath.IsAbs(cwd) {
		return nil, fieldErr("Cwd", "%q is not absolute", cwd)
	}
	cwd = cleanOrEmpty(cwd)
	m.mu.Lock()
	lives := make([]*Live, 0, len(m.live))
	for _, l := range m.live {
		if cwd == "" || l.Cwd == cwd {
			lives = append(lives, l)
		}
	}
	m.mu.Unlock()
	seen := map[string]bool{}
	var out []Info
	for _, l := range lives {
		seen[l.ID()] = true
		out = append(out, m.liveInfo(l))
	}
	dirs := []string{cwd}
	if cwd == "" {
		dirs = m.projects.list()
	}
	var errs []error
	for _, d := range dirs {
		infos, err := storedInfos(ctx, m.cfg.Home, d)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, in := range infos {
			if !seen[in.ID] && (cwd == "" || in.Cwd == "" || filepath.Clean(in.Cwd) == cwd) {
				seen[in.ID] = true
				out = append(out, in)
			}
		}
	}
	slices.SortFunc(out, func(a, b Info) int {
		if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, errors.Join(errs...)
}

func cleanOrEmpty(p string) string {
	if p == "" {
		return ""
	}
	return filepath.Clean(p)
}

func (m *Manager) liveInfo(l *Live) Info {
	s := l.Session()
	st := s.ContextState()
	in := Info{ID: l.ID(), Cwd: l.Cwd, Name: s.Name(), PermissionMode: string(s.PermissionMode()),
		Running: l.IsRunning(), Live: true, Context: &st}
	if a := assemble.Of(l.InteractiveSession); a != nil {
		in.Provider, in.Model = a.Provider.Type, a.Provider.Model
		in.Tools, in.APIKeySource, in.Sandbox = a.Tools, a.Provider.APIKeySource, a.Sandbox
	}
	l.mu.Lock()
	in.CreatedAt, in.UpdatedAt = l.created, l.updated
	l.mu.Unlock()
	msgs := s.Messages()
	in.MessageCount, in.Title = chatStats(msgs)
	return in
}

// chatStats counts the chat messages (the system prompt is not one) and titles the
// session after its first user message.
func chatStats(msgs []llm.Message) (count int, title string) {
	for _, m := range msgs {
		if m.Role == llm.RoleSystem {
			continue
		}
		count++
		if title == "" && m.Role == llm.RoleUser {
			title = shorten(m.Text())
		}
	}
	return count, title
}

// shorten makes a one-line title of at most 80 runes.
func shorten(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 80 {
		return string(r[:79]) + "…"
	}
	return s
}

// Close ends a live session: the running prompt is aborted, the session saved and
// SessionEnd fired.
func (m *Manager) Close(ctx context.Context, id, reason string) error {
	m.mu.Lock()
	l := m.live[id]
	delete(m.live, id)
	m.mu.Unlock()
	if l == nil {
		return fmt.Errorf("%w: %q is not live in this engine", ErrNotFound, id)
	}
	if reason == "" {
		reason = "other"
	}
	return l.Close(ctx, reason)
}

// Delete closes the session if it is live, then removes its stored record and log.
func (m *Manager) Delete(ctx context.Context, id string) error {
	var cwd string
	m.mu.Lock()
	if l := m.live[id]; l != nil {
		cwd = l.Cwd
	}
	m.mu.Unlock()
	if cwd != "" {
		if err := m.Close(ctx, id, "other"); err != nil && !errors.Is(err, ErrNotFound) {
			return err
		}
	} else {
		in, err := m.Info(ctx, id)
		if err != nil {
			return err
		}
		cwd = in.Cwd
	}
	return deleteStored(ctx, m.cfg.Home, cwd, id)
}

// Shutdown closes every live session (each saved) and refuses new ones.
func (m *Manager) Shutdown(ctx context.Context) error {
	m.mu.Lock()
	m.closed = true
	lives := make([]*Live, 0, len(m.live))
	for id, l := range m.live {
		lives = append(lives, l)
		delete(m.live, id)
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	errs := make([]error, len(lives))
	for i, l := range lives {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := l.Close(ctx, "other"); err != nil {
				errs[i] = fmt.Errorf("session %s: %w", l.ID(), err)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// LiveCount is the number of live sessions.
func (m *Manager) LiveCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.live)
}

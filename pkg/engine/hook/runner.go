package hook

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"
)

// Runner runs the hooks configured for an event. It is safe for concurrent use.
type Runner struct {
	groups    map[Event][]compiledGroup
	executors map[string]Executor
	log       *zap.Logger
	now       func() time.Time
	filter    func(h Definition, in Input) bool

	// spent holds the identities of the `once` hooks that have run.
	spentMu sync.Mutex
	spent   map[string]bool
}

type compiledGroup struct {
	m     matcher
	hooks []Definition
}

// Option configures a Runner.
type Option func(*Runner)

// WithExecutor registers the executor for a hook type (the SDK layer adds "prompt"
// and "agent"; it may also replace "command" or "http").
func WithExecutor(hookType string, x Executor) Option {
	return func(r *Runner) { r.executors[hookType] = x }
}

// WithFilter decides, for a hook with an `if` condition and an event with a tool call,
// whether the call matches it (permission-rule matching belongs to the caller). A hook
// whose condition does not match does not run.
func WithFilter(f func(h Definition, in Input) bool) Option {
	return func(r *Runner) { r.filter = f }
}

// WithLogger logs non-blocking hook errors and invalid output.
func WithLogger(l *zap.Logger) Option {
	return func(r *Runner) { r.log = l }
}

// WithClock injects the clock used for hook durations.
func WithClock(now func() time.Time) Option {
	return func(r *Runner) { r.now = now }
}

// NewRunner prepares a runner for cfg. Command hooks run in projectDir.
func NewRunner(cfg Config, projectDir string, opts ...Option) *Runner {
	r := &Runner{
		groups: map[Event][]compiledGroup{},
		executors: map[string]Executor{
			"command": NewCommandExecutor(projectDir),
			"http":    NewHTTPExecutor(),
		},
		log: zap.NewNop(),
		now: time.Now,
	}
	for _, o := range opts {
		o(r)
	}
	for ev, gs := range cfg {
		for _, g := range gs {
			r.groups[ev] = append(r.groups[ev], compiledGroup{m: compileMatcher(g.Matcher), hooks: g.Hooks})
		}
	}
	return r
}

// Matching returns the hooks that would run for the input, in configuration order,
// identical hooks once.
func (r *Runner) Matching(in Input) []Definition {
	target, filtered := matchTarget(&in)
	alias := toolNameAlias(in.Event, target)
	seen := map[string]bool{}
	var out []Definition
	for _, g := range r.groups[in.Event] {
		if filtered && !g.m.match(target) && (alias == "" || !g.m.match(alias)) {
			continue
		}
		for _, h := range g.hooks {
			if h.If != "" && in.ToolName != "" && r.filter != nil && !r.filter(h, in) {
				continue
			}
			if id := h.identity(); !seen[id] && !(h.Once && r.isSpent(id)) {
				seen[id] = true
				out = append(out, h)
			}
		}
	}
	return out
}

// Run runs every matching hook in parallel, each under its own timeout, and folds
// their outcomes into one Result. It returns when all of them have finished or been
// killed; async hooks are started and not waited for.
func (r *Runner) Run(ctx context.Context, in Input) Result {
	hooks := r.claimOnce(r.Matching(in))
	res := Result{Event: in.Event, Continue: true}
	if len(hooks) == 0 {
		return res
	}
	stdin, err := json.Marshal(in)
	if err != nil {
		res.Errors = append(res.Errors, err)
		return res
	}
	runs := make([]Run, len(hooks))
	var wg sync.WaitGroup
	for i, h := range hooks {
		if h.Async {
			runs[i] = Run{Hook: h, Async: true}
			go r.runOne(context.WithoutCancel(ctx), h, stdin)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			runs[i] = r.runOne(ctx, h, stdin)
		}()
	}
	wg.Wait()
	return r.fold(in.Event, runs)
}

// Run is the outcome of one hook.
type Run struct {
	Hook     Definition
	Async    bool // started in the background; no outcome
	Response Response
	Duration time.Duration
	// Err is set when the hook could not run, timed out or failed without blocking.
	Err error
}

func (r *Runner) runOne(ctx context.Context, h Definition, stdin []byte) Run {
	run := Run{Hook: h}
	x, ok := r.executors[h.Type]
	if !ok {
		run.Err = fmt.Errorf("%w %q", ErrNoExecutor, h.Type)
		r.log.Warn("hook not run", zap.Error(run.Err))
		return run
	}
	ctx, cancel := context.WithTimeout(ctx, h.timeout())
	defer cancel()
	start := r.now()
	run.Response, run.Err = x.Execute(ctx, h, stdin)
	run.Duration = r.now().Sub(start)
	if run.Err != nil {
		r.log.Warn("hook failed", zap.String("hook", describe(h)), zap.Error(run.Err))
	}
	return run
}

func (r *Runner) isSpent(id string) bool {
	r.spentMu.Lock()
	defer r.spentMu.Unlock()
	return r.spent[id]
}

// claimOnce drops the `once` hooks another Run has claimed since Matching and claims
// the rest: of two events that match one at once, only one runs it.
func (r *Runner) claimOnce(hooks []Definition) []Definition {
	r.spentMu.Lock()
	defer r.spentMu.Unlock()
	out := hooks[:0]
	for _, h := range hooks {
		if h.Once {
			id := h.identity()
			if r.spent[id] {
				continue
			}
			if r.spent == nil {
				r.spent = map[string]bool{}
			}
			r.spent[id] = true
		}
		out = append(out, h)
	}
	return out
}

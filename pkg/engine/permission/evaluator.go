package permission

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Config is everything the evaluator needs besides the call itself.
type Config struct {
	Mode  Mode
	Rules []Rule // every layer's rules, merged (see Rules)
	// ProjectRoot anchors `/path` specifiers of rules without a Source.Root, and is a
	// working directory.
	ProjectRoot string
	// AdditionalDirs are further working directories (Claude Code's additionalDirectories).
	AdditionalDirs []string
	// Home anchors `~/` specifiers; empty means os.UserHomeDir.
	Home string
	// NoSandbox says commands run without the operating system's sandbox (sandbox.go):
	// while a file deny rule is in force, a command whose file access the table cannot
	// fully know then asks.
	NoSandbox bool
	// OutsideSandbox, when set, reports a Bash command the sandbox leaves out
	// (sandbox.excludedCommands): it is checked as if there were no sandbox.
	OutsideSandbox func(command string) bool
	// CopyOf says ProjectRoot is a copy of this directory (a worktree job's worktree of
	// the project it was made from; see InWorktree): a deny or ask rule matching a
	// path's counterpart in the other copy matches the path.
	CopyOf string
}

// Evaluator decides tool calls. It is immutable and safe for concurrent use.
type Evaluator struct {
	cfg               Config
	deny, ask, allow  []*Rule
	workingSpellings  [][]string // per working directory, its spellings
	configuredWorking []string
	// hasReadRules, hasWriteRules: some deny or ask rule governs reads (writes), so
	// the paths Bash commands read (write) must be placed and checked.
	hasReadRules, hasWriteRules bool
}

// New builds an evaluator. An empty mode is ModeDefault.
func New(cfg Config) *Evaluator {
	if cfg.Mode == "" {
		cfg.Mode = ModeDefault
	}
	if cfg.Home == "" {
		cfg.Home, _ = os.UserHomeDir()
	}
	e := &Evaluator{cfg: cfg}
	for i := range e.cfg.Rules {
		r := &e.cfg.Rules[i]
		switch r.Behavior {
		case Deny:
			e.deny = append(e.deny, r)
		case Ask:
			e.ask = append(e.ask, r)
		case Allow:
			e.allow = append(e.allow, r)
		}
	}
	for _, r := range append(append([]*Rule(nil), e.deny...), e.ask...) {
		if r.broken == nil && r.spec.kind == specNone {
			continue // a tool-wide rule governs the tool, not commands' paths (gates.operand)
		}
		e.hasReadRules = e.hasReadRules || appliesTo(r, "Read")
		e.hasWriteRules = e.hasWriteRules || appliesTo(r, "Write")
	}
	for _, d := range append([]string{cfg.ProjectRoot}, cfg.AdditionalDirs...) {
		if filepath.IsAbs(d) {
			e.configuredWorking = append(e.configuredWorking, d)
		}
	}
	return e
}

// Mode is the evaluator's permission mode.
func (e *Evaluator) Mode() Mode { return e.cfg.Mode }

// WithMode returns an evaluator with the same rules in another mode.
func (e *Evaluator) WithMode(m Mode) *Evaluator {
	cfg := e.cfg
	cfg.Mode = m
	return New(cfg)
}

// InWorktree returns the evaluator of a job that works in dir, a copy of the directory
// of (a git worktree of the project). The worktree is the job's project: it is the
// working directory (the project root, with the same additional directories), so its
// protected paths are its own .git, .claude, .robota …, not the worktree itself, which
// may sit below the project's .robota; of is outside it, so the job's writes there ask
// as any write outside the project does. Deny and ask rules hold for both copies of a
// file: a rule matching a path's counterpart in the other copy (`Read(/secret.txt)` of
// the project's settings and dir/secret.txt) matches the path.
func (e *Evaluator) InWorktree(dir, of string) *Evaluator {
	cfg := e.cfg
	cfg.ProjectRoot, cfg.CopyOf = dir, of
	return New(cfg)
}

// WithRules returns an evaluator with extra rules added to its own, in the same mode
// (a session's "allow for the session" approvals). They merge as another layer does: a
// deny anywhere still beats an allow.
func (e *Evaluator) WithRules(extra ...Rule) *Evaluator {
	if len(extra) == 0 {
		return e
	}
	cfg := e.cfg
	cfg.Rules = append(append([]Rule(nil), e.cfg.Rules...), extra...)
	return New(cfg)
}

// Request is one tool call to decide.
type Request struct {
	Tool  string
	Input json.RawMessage // the tool's arguments; see InputFromMap
	Cwd   string          // the session's working directory; empty means ProjectRoot
	// Class, when set, is the call's class for the mode policy in place of ClassOf(Tool):
	// a SlashCommand call is as safe as the command it runs (Safety), which only the
	// session knows. Rules still apply first.
	Class Class
	// CommandNames are the other names the command of a SlashCommand call answers to
	// (its plugin-qualified and bare names), so a rule naming either spelling governs it.
	CommandNames []string
}

// Decision is the outcome of an evaluation.
type Decision struct {
	Behavior Behavior
	// Reason names the rule or the mode that decided. It is for people: branch on
	// Behavior, Rule and ByMode, never on its wording.
	Reason string
	// Rule is the deciding rule; nil when the mode or an analysis limit decided.
	Rule *Rule
	// ByMode reports that the permission mode's policy for the tool's class decided
	// (the table in the package documentation, with its working-directory refinement)
	// on a call analysed in full: no rule, no analysis limit (a command or path known
	// only at run time, text bash evaluates again, a line that does not parse) and no
	// protected-path check was involved. Only such an ask may be lifted by a PreToolUse
	// hook's allow (Claude Code: ask rules and safety checks still apply). A Bash call
	// is ByMode when every part with the call's behaviour is.
	ByMode bool
	Mode   Mode
	// Parts are the decisions for each sub-command and redirection of a Bash call.
	Parts []Part
}

// Part is the decision for one piece of a Bash command line; ByMode as in Decision.
type Part struct {
	Subject  string
	Behavior Behavior
	Reason   string
	Rule     *Rule
	ByMode   bool
}

// Evaluate decides one tool call: deny rules, then ask rules, then allow rules, then
// the mode. See the package documentation for the details.
func (e *Evaluator) Evaluate(req Request) Decision {
	cwd := req.Cwd
	if cwd == "" {
		cwd = e.cfg.ProjectRoot
	}
	budget := maxPathWork
	ctx := pathContext{cwd: cwd, root: e.cfg.ProjectRoot, home: e.cfg.Home, spelled: map[string][]string{}, budget: &budget}
	in := decodeInput(req.Input)
	var d Decision
	switch {
	case req.Tool == "Bash":
		d = e.evalBash(in, ctx)
	case readFamily(req.Tool) || editFamily(req.Tool):
		d = e.evalPathTool(req.Tool, in, ctx)
	default:
		d = e.evalGeneric(req, in)
	}
	d.Mode = e.cfg.Mode
	if e.cfg.Mode == ModeDontAsk && d.Behavior == Ask {
		// ByMode is kept: a denial of what a rule or an analysis limit asked is not
		// the mode's alone.
		d.Behavior = Deny
		d.Reason = "mode dontAsk denies what it would otherwise ask: " + d.Reason
	}
	return d
}

// match is how a rule relates to one call (or one Bash sub-command).
type match struct {
	all     bool // matches under every reading: enough for an allow rule
	any     bool // matches under some certain reading: enough for a deny rule
	unknown bool // cannot be decided: a deny or ask rule then makes the call "ask"
}

var (
	matchAlways  = match{all: true, any: true}
	matchUnknown = match{unknown: true}
)

// gates are the mode-specific checks between the rule lists.
type gates struct {
	afterDeny func() *Decision // a hard limit of the mode (plan never modifies)
	afterAsk  func() *Decision // a soft limit (protected paths)
	mode      func() Decision  // the mode's own answer
	// operand marks a path a Bash command reads or writes: only rules with a
	// specifier (`Edit(./src/**)`, `Read(.env)`) apply to it. A tool-wide rule
	// (`Write`, `Read`) names the tool, as in Claude Code: `--disallowedTools
	// Read,Write,Edit` removes those tools, it does not deny every command that
	// reads or writes a file.
	operand bool
}

// pipeline runs the evaluation order for one subject: deny → ask → allow → mode.
func (e *Evaluator) pipeline(tool string, m func(*Rule) match, g gates) Decision {
	var maybe *Rule
	for _, r := range e.deny {
		if !g.governs(r, tool) {
			continue
		}
		res := ruleMatch(r, m)
		if res.any {
			return Decision{Behavior: Deny, Reason: "denied by " + r.describe(), Rule: r}
		}
		if res.unknown && maybe == nil {
			maybe = r
		}
	}
	if g.afterDeny != nil {
		if d := g.afterDeny(); d != nil {
			return *d
		}
	}
	if maybe != nil {
		why := "the call cannot be checked against " + maybe.describe()
		if maybe.broken != nil {
			why = "the rule cannot be evaluated: " + maybe.describe()
		}
		return Decision{Behavior: Ask, Reason: why, Rule: maybe}
	}
	for _, r := range e.ask {
		if !g.governs(r, tool) {
			continue
		}
		if res := ruleMatch(r, m); res.any || res.unknown {
			return Decision{Behavior: Ask, Reason: "asked by " + r.describe(), Rule: r}
		}
	}
	if g.afterAsk != nil {
		if d := g.afterAsk(); d != nil {
			return *d
		}
	}
	for _, r := range e.allow {
		if !appliesTo(r, tool) {
			continue
		}
		if res := ruleMatch(r, m); res.all && !res.unknown {
			return Decision{Behavior: Allow, Reason: "allowed by " + r.describe(), Rule: r}
		}
	}
	return g.mode()
}

// governs reports whether a deny or ask rule speaks for this subject: a rule of the
// tool, and for a command's operand only a rule with a specifier (a broken rule still
// counts: what it meant cannot be known).
func (g gates) governs(r *Rule, tool string) bool {
	return appliesTo(r, tool) && !(g.operand && r.broken == nil && r.spec.kind == specNone)
}

func ruleMatch(r *Rule, m func(*Rule) match) match {
	switch {
	case r.broken != nil:
		return matchUnknown
	case r.spec.kind == specNone:
		return matchAlways
	}
	return m(r)
}

// modeDecision is the mode's answer on a fully analysed call: ByMode. Callers whose
// answer depends on an analysis limit clear ByMode.
func (e *Evaluator) modeDecision(b Behavior, why string) Decision {
	return Decision{Behavior: b, Reason: fmt.Sprintf("mode %s %s", e.cfg.Mode, why), ByMode: true}
}

func (e *Evaluator) classMode(c Class) func() Decision {
	return func() Decision {
		b := ModePolicy(e.cfg.Mode, c)
		return e.modeDecision(b, verbPhrase(b, string(c)+" tools"))
	}
}

func verbPhrase(b Behavior, what string) string {
	switch b {
	case Allow:
		return "allows " + what
	case Deny:
		return "denies " + what
	}
	return "asks before " + what
}

// evalGeneric decides tools without path or command arguments.
func (e *Evaluator) evalGeneric(req Request, in toolInput) Decision {
	tool := req.Tool
	m := func(r *Rule) match {
		switch r.spec.kind {
		case specDomain:
			host, ok := urlHost(in)
			if !ok {
				return matchUnknown
			}
			hit := domainMatches(r.spec.domain, host)
			return match{all: hit, any: hit}
		case specName:
			names, ok := agentTypes(in)
			if !ok {
				return matchUnknown
			}
			// An allow rule must name every agent the call starts; a deny or ask rule
			// holds when it names any of them, in any capitalisation.
			all, anyHit := true, false
			for _, name := range names {
				all = all && name == r.spec.name
				anyHit = anyHit || strings.EqualFold(name, r.spec.name)
			}
			return match{all: all, any: anyHit}
		case specCommand:
			line, ok := in.str("command")
			if !ok {
				return matchUnknown
			}
			name, args, err := SplitCommandLine(line)
			if err != nil {
				return matchUnknown
			}
			names := append([]string{name}, req.CommandNames...)
			return match{all: commandMatch(r.spec.command, names, args, true), any: commandMatch(r.spec.command, names, args, false)}
		}
		return matchUnknown
	}
	class := req.Class
	if class == "" {
		class = ClassOf(tool)
	}
	return e.pipeline(tool, m, gates{mode: e.classMode(class)})
}

// inside reports whether every spelling lies within a working directory.
func (e *Evaluator) inside(forms []string, ctx pathContext) bool {
	for _, f := range forms {
		if len(e.containing(f, ctx)) == 0 {
			return false
		}
	}
	return len(forms) > 0
}

// workingDirs are the project root and the additional directories. The cwd is not
// one: a `cd` must not widen what the mode auto-allows. Only when none is configured
// does the cwd stand in.
func (e *Evaluator) workingDirs(ctx pathContext) []string {
	if len(e.configuredWorking) > 0 || !filepath.IsAbs(ctx.cwd) {
		return e.configuredWorking
	}
	return []string{ctx.cwd}
}

// containing returns every working directory spelling that contains f.
func (e *Evaluator) containing(f string, ctx pathContext) []string {
	var out []string
	for _, d := range e.workingDirs(ctx) {
		for _, s := range ctx.spellings(d) {
			if within(f, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// protected reports whether a spelling lies below a protected directory: below any
// working directory that contains it, or anywhere in its path when none does.
func (e *Evaluator) protected(forms []string, ctx pathContext) bool {
	for _, f := range forms {
		dirs := e.containing(f, ctx)
		if len(dirs) == 0 && isProtected(f) {
			return true
		}
		for _, d := range dirs {
			if isProtected(strings.TrimPrefix(f, d)) {
				return true
			}
		}
	}
	return false
}

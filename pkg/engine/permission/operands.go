package permission

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// lineDirs are the directories a Bash line's commands may run in: the cwd and every
// directory its cd and pushd name (relative ones from each of the others). known is
// false when the line may change to a directory we cannot name.
type lineDirs struct {
	dirs        []string
	known       bool
	homeUnknown bool
}

const maxLineDirs = 16

func (e *Evaluator) lineDirs(cmd *Command, ctx pathContext) lineDirs {
	ld := lineDirs{known: !cmd.cdUnknown && filepath.IsAbs(ctx.cwd), homeUnknown: cmd.homeUnknown}
	if !ld.known {
		return ld
	}
	ld.dirs = []string{filepath.Clean(ctx.cwd)}
	seen := map[string]bool{ld.dirs[0]: true}
	// Each round places every target against the directories found so far, so a
	// chain of relative cds is followed as far as the line has targets.
	for round := 0; round <= len(cmd.cdTargets); round++ {
		grew := false
		for _, t := range cmd.cdTargets {
			var raws []string
			switch {
			case t.tilde:
				if !filepath.IsAbs(ctx.home) || cmd.homeUnknown {
					return lineDirs{homeUnknown: cmd.homeUnknown}
				}
				raws = []string{rawJoin(ctx.home, strings.TrimPrefix(strings.TrimPrefix(t.lit, "~"), "/"))}
			case filepath.IsAbs(t.lit):
				raws = []string{t.lit}
			default:
				for _, d := range ld.dirs {
					raws = append(raws, rawJoin(d, t.lit))
				}
			}
			// cd -L drops `..` lexically, cd -P after following links: both.
			var next []string
			for _, raw := range raws {
				next = append(next, filepath.Clean(raw))
				if r, err := resolve(raw); err == nil {
					next = append(next, r)
				}
			}
			for _, n := range next {
				if !seen[n] {
					seen[n] = true
					ld.dirs = append(ld.dirs, n)
					grew = true
				}
			}
			if len(ld.dirs) > maxLineDirs {
				return lineDirs{homeUnknown: cmd.homeUnknown}
			}
		}
		if !grew {
			break
		}
	}
	return ld
}

// operand is one place a command's path argument may name: its spellings.
type operand struct {
	forms []string
	isDir bool
}

// place finds every file a path word may name: relative to each directory the line
// may be in, with its glob expanded against the filesystem as bash would (dotfiles
// included, as with dotglob). known=false: the word or the directory is only known at
// run time.
func (e *Evaluator) place(w word, ld lineDirs, ctx pathContext) (ops []operand, known bool) {
	return e.placeAs(w, ld, ctx, false)
}

// placeAs places a word; lexical skips symlink resolution (for the arguments of
// unknown commands, which can open any file anyway: the check there is a courtesy
// and must stay cheap).
func (e *Evaluator) placeAs(w word, ld lineDirs, ctx pathContext, lexical bool) (ops []operand, known bool) {
	var names []string
	switch {
	case w.static:
		names = []string{w.lit}
	case w.glob != "":
		// Expanded below, per directory.
	default:
		return nil, false
	}
	pattern := w.glob
	raw := w.lit
	if w.tilde && ld.homeUnknown {
		return nil, false
	}
	if w.tilde {
		p := w.lit
		if !w.static {
			p = pattern
		}
		if p != "~" && !strings.HasPrefix(p, "~/") || !filepath.IsAbs(ctx.home) {
			return nil, false
		}
		if w.static {
			raw = rawJoin(ctx.home, strings.TrimPrefix(p[1:], "/"))
			names = []string{raw}
		} else {
			pattern = rawJoin(ctx.home, strings.TrimPrefix(p[1:], "/"))
		}
	}
	globbed := false
	var bases []string
	if filepath.IsAbs(raw) || filepath.IsAbs(pattern) {
		bases = []string{"/"}
	} else {
		if !ld.known {
			return nil, false
		}
		bases = ld.dirs
	}
	add := func(abs string) bool {
		if !ctx.spend(1) {
			return false
		}
		if lexical {
			ops = append(ops, operand{forms: []string{filepath.Clean(abs)}})
			return true
		}
		forms, isDir, ok := pathFormsWith(abs, "/", "", ctx.resolve)
		if !ok {
			return false
		}
		ops = append(ops, operand{forms: forms, isDir: isDir})
		return true
	}
	for _, b := range bases {
		if pattern != "" && !w.static {
			abs := pattern
			if !filepath.IsAbs(abs) {
				abs = rawJoin(b, pattern)
			}
			matches, ok := expandGlob(abs, ctx)
			if !ok {
				return nil, false
			}
			globbed = true
			for _, m := range matches {
				if !add(m) {
					return nil, false
				}
			}
			continue
		}
		for _, n := range names {
			abs := n
			if !filepath.IsAbs(abs) {
				abs = rawJoin(b, n)
			}
			if !add(abs) {
				return nil, false
			}
		}
	}
	if globbed && len(ops) == 0 && e.cfg.NoSandbox {
		// A glob that matches nothing now is left literal by bash, or matches what the
		// line itself creates before it runs (a link, an extracted file): without the
		// sandbox, a path known only at run time.
		return nil, false
	}
	return ops, true
}

// maxPathWork bounds the directory entries and paths one call reads and places.
const maxPathWork = 20000

// expandGlob expands an absolute pattern segment by segment, within the call's
// budget; ok=false past it or for `**`, which globstar would make recursive.
func expandGlob(pattern string, ctx pathContext) (matches []string, ok bool) {
	segs := strings.Split(pattern, "/")
	cur := []string{"/"}
	for _, seg := range segs {
		if seg == "" {
			continue
		}
		if strings.Contains(seg, "**") {
			return nil, false
		}
		var next []string
		if !strings.ContainsAny(seg, "*?[") {
			lit := unescapeGlob(seg)
			for _, c := range cur {
				next = append(next, rawJoin(c, lit)) // `..` is left to the kernel
			}
			cur = next
			continue
		}
		seg, ok := bashClass(seg)
		if !ok {
			return nil, false
		}
		if _, err := filepath.Match(seg, ""); err != nil {
			return nil, false
		}
		for _, c := range cur {
			entries, err := os.ReadDir(c)
			if err != nil {
				continue
			}
			if !ctx.spend(len(entries)) {
				return nil, false
			}
			for _, en := range entries {
				if m, _ := filepath.Match(seg, en.Name()); m {
					next = append(next, rawJoin(c, en.Name()))
				}
			}
		}
		cur = next
	}
	return cur, true
}

// bashClass turns bash's bracket negation `[!…]` into Match's `[^…]`; a POSIX
// class, equivalence class or collating symbol (`[[:alpha:]]`), which Match does not
// know, makes the segment unusable (ok=false).
func bashClass(seg string) (string, bool) {
	if strings.Contains(seg, "[:") || strings.Contains(seg, "[=") || strings.Contains(seg, "[.") {
		return "", false
	}
	b := []byte(seg)
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '\\':
			i++
		case b[i] == '[' && i+1 < len(b) && b[i+1] == '!':
			b[i+1] = '^'
		}
	}
	return string(b), true
}

// rawJoin joins without cleaning: `link/..` must be resolved by following the link,
// as the kernel does, not dropped lexically.
func rawJoin(dir, rel string) string {
	if rel == "" {
		return dir
	}
	return strings.TrimSuffix(dir, "/") + "/" + rel
}

func unescapeGlob(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// operandParts checks the paths a sub-command reads and writes against the Read and
// Edit rules and the protected paths, and an unknown command's arguments against
// them too. Only what stops the command becomes a part: the command itself is
// decided by the Bash rules.
func (e *Evaluator) operandParts(sub *SubCommand, ld lineDirs, ctx pathContext) []Part {
	var parts []Part
	if e.hasReadRules {
		ctx.recursive, ctx.skipsHidden, ctx.followsLinks, ctx.includes = sub.recursive, sub.skipsHidden, sub.followsLinks, sub.includes
		for _, w := range sub.reads {
			if p, stop := e.operandPart("Read", w, ld, ctx); stop {
				parts = append(parts, p)
			}
		}
	}
	ctx.recursive, ctx.skipsHidden, ctx.followsLinks, ctx.includes = false, false, false, nil
	if e.cfg.Mode != ModeBypassPermissions || e.hasWriteRules {
		for _, w := range sub.writes {
			if p, stop := e.operandPart("Write", w, ld, ctx); stop {
				parts = append(parts, p)
			}
		}
	}
	for _, w := range sub.names {
		if p, stop := e.namePart(w, ld, ctx); stop {
			parts = append(parts, p)
		}
	}
	return append(parts, e.treeParts(sub, ld, ctx)...)
}

// stopKind says why an operand stops its command.
type stopKind uint8

const (
	stopNone      stopKind = iota
	stopRule               // a deny or ask rule matches the path
	stopUnknown            // the path is only known at run time and a rule could match it
	stopProtected          // a write to a protected path
)

func (e *Evaluator) operandPart(tool string, w word, ld lineDirs, ctx pathContext) (Part, bool) {
	p, k := e.operandStop(tool, w, ld, ctx)
	return p, k != stopNone
}

func (e *Evaluator) operandStop(tool string, w word, ld lineDirs, ctx pathContext) (Part, stopKind) {
	if w.static && (w.lit == "" || w.lit == "-" || devTargets(w.lit) || isDevFD(w.lit)) {
		return Part{}, stopNone
	}
	ops, known := e.place(w, ld, ctx)
	return e.placedStop(tool, w, ops, known, ctx)
}

func (e *Evaluator) placedStop(tool string, w word, ops []operand, known bool, ctx pathContext) (Part, stopKind) {
	m := func(r *Rule) match {
		if r.spec.kind != specPath || !known {
			return matchUnknown
		}
		bases := r.spec.path.bases(ctx, r.Source.Root)
		if len(bases) == 0 {
			return matchUnknown
		}
		unknown := false
		for _, o := range ops {
			// The other copy's file too (a worktree job's: counterparts); a floating
			// pattern is looked for below the directory itself, which holds the same names.
			for _, f := range slices.Concat(o.forms, e.counterparts(o.forms, ctx)) {
				if r.spec.path.matches(f, o.isDir, bases) || ctx.recursive && o.isDir && r.spec.path.contains(f, bases) {
					return match{any: true}
				}
			}
			// A floating pattern (`.env`) can match anywhere below a directory read
			// recursively: look for such an entry there.
			if ctx.recursive && o.isDir && !r.spec.path.anchored && len(o.forms) > 0 {
				switch found := floatingBelow(r, o.forms[0], bases, ctx); {
				case found.any:
					return found
				case found.unknown:
					unknown = true
				}
			}
		}
		if unknown {
			return matchUnknown
		}
		return match{}
	}
	kind := stopRule
	g := gates{mode: func() Decision { return Decision{Behavior: Allow} }, operand: true}
	if tool == "Write" {
		g.afterAsk = func() *Decision {
			if e.cfg.Mode == ModeBypassPermissions {
				return nil
			}
			if !known {
				kind = stopUnknown
				return &Decision{Behavior: Ask, Reason: "a command writes to a path known only at run time, which may be protected"}
			}
			for _, o := range ops {
				// A path none of whose segments is protected cannot be protected below a
				// working directory either: skip resolving the working directories.
				if anyProtected(o.forms) && e.protected(o.forms, ctx) {
					kind = stopProtected
					return &Decision{Behavior: Ask, Reason: "writing to a protected path (" + protectedList + ") always asks"}
				}
			}
			return nil
		}
	}
	d, definite := e.denyAskOnly(tool, m, g)
	if d.Behavior == Allow {
		return Part{}, stopNone
	}
	if !definite && kind == stopRule {
		kind = stopUnknown
	}
	verb := "read of "
	if tool == "Write" {
		verb = "write to "
	}
	return Part{Subject: verb + renderTokens(w.toks), Behavior: d.Behavior, Reason: d.Reason, Rule: d.Rule}, kind
}

// denyAskOnly runs the deny and ask rules and the gates, but no allow rule: a path
// a command names is stopped by rules, never approved by them.
// definite is false when a rule could only possibly match.
func (e *Evaluator) denyAskOnly(tool string, m func(*Rule) match, g gates) (d Decision, definite bool) {
	var maybe *Rule
	for _, r := range e.deny {
		if !g.governs(r, tool) {
			continue
		}
		res := ruleMatch(r, m)
		if res.any {
			return Decision{Behavior: Deny, Reason: "denied by " + r.describe(), Rule: r}, true
		}
		if res.unknown && maybe == nil {
			maybe = r
		}
	}
	if maybe != nil {
		return Decision{Behavior: Ask, Reason: "the path cannot be checked against " + maybe.describe(), Rule: maybe}, false
	}
	for _, r := range e.ask {
		if !g.governs(r, tool) {
			continue
		}
		if res := ruleMatch(r, m); res.any || res.unknown {
			return Decision{Behavior: Ask, Reason: "asked by " + r.describe(), Rule: r}, res.any
		}
	}
	if g.afterAsk != nil {
		if d := g.afterAsk(); d != nil {
			return *d, true
		}
	}
	return g.mode(), true
}

// namePart: an unknown command that names a denied or protected path as any of its
// arguments (or as the value of --opt=value or NAME=value) asks; we do not know what
// it does with it.
func (e *Evaluator) namePart(w word, ld lineDirs, ctx pathContext) (Part, bool) {
	if !w.static && w.glob == "" {
		return Part{}, false
	}
	cands := []word{w}
	if w.static {
		if strings.HasPrefix(w.lit, "-") {
			_, v, ok := strings.Cut(w.lit, "=")
			if !ok {
				return Part{}, false
			}
			cands = []word{litWord(v)}
		} else if _, v, ok := strings.Cut(w.lit, "="); ok && isAssignmentWord(w) {
			cands = append(cands, litWord(v))
		}
	}
	checkRead, checkWrite := e.hasReadRules, e.hasWriteRules || e.cfg.Mode != ModeBypassPermissions
	if !checkRead && !checkWrite {
		return Part{}, false
	}
	for _, c := range cands {
		if c.static && (c.lit == "" || c.lit == "-" || devTargets(c.lit) || isDevFD(c.lit)) {
			continue
		}
		ops, known := e.placeAs(c, ld, ctx, true)
		for _, tool := range []string{"Read", "Write"} {
			if tool == "Read" && !checkRead || tool == "Write" && !checkWrite {
				continue
			}
			p, kind := e.placedStop(tool, c, ops, known, ctx)
			if kind != stopRule && kind != stopProtected {
				continue // a path known only at run time is not reason enough here
			}
			return Part{Subject: "argument " + renderTokens(c.toks), Behavior: Ask,
				Reason: "a command we do not know names a path: " + p.Reason, Rule: p.Rule}, true
		}
	}
	return Part{}, false
}

func anyProtected(forms []string) bool {
	for _, f := range forms {
		if isProtected(f) {
			return true
		}
	}
	return false
}

const protectedList = ".git, .claude, .robota, .agents/skills, .agents/agents, .vscode, .idea, shell and git configuration"

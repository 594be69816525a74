package permission

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// evalBash decides a Bash call: every sub-command through deny → ask → allow → mode,
// every redirection as a read or write of its file, and the worst answer wins.
func (e *Evaluator) evalBash(in toolInput, ctx pathContext) Decision {
	for _, r := range e.deny {
		if appliesTo(r, "Bash") && r.broken == nil && r.spec.kind == specNone {
			return Decision{Behavior: Deny, Reason: "denied by " + r.describe(), Rule: r}
		}
	}
	never := func(why string) Decision {
		// Nothing we cannot analyse is auto-allowed, by any rule or mode.
		if e.cfg.Mode == ModePlan {
			d := e.modeDecision(Deny, "denies a command that cannot be analysed: "+why)
			d.ByMode = false
			return d
		}
		return Decision{Behavior: Ask, Reason: "the command cannot be analysed: " + why}
	}
	src, ok := in.str("command")
	if !ok {
		return never("no readable command argument")
	}
	if !e.cfg.NoSandbox && e.cfg.OutsideSandbox != nil && e.cfg.OutsideSandbox(src) {
		// The settings run this command outside the sandbox: only the checker holds.
		outside := *e
		outside.cfg.NoSandbox = true
		return outside.evalBash(in, ctx)
	}
	cmd, err := ParseCommand(src)
	if err != nil {
		return never(err.Error())
	}
	var parts []Part
	ld := e.lineDirs(cmd, ctx)
	for i := range cmd.Subs {
		sub := &cmd.Subs[i]
		d := e.pipeline("Bash", subMatcher(sub), gates{afterDeny: e.planGate(sub), mode: e.classMode(ClassExecute)})
		// A command hidden from us, or one whose program is computed at run time, is
		// an analysis limit: what the mode answers for it is not the mode's alone.
		p := Part{Subject: sub.Text, Behavior: d.Behavior, Reason: d.Reason, Rule: d.Rule, ByMode: d.ByMode}
		if d.ByMode && (sub.Unknown || sub.computedName) {
			p.ByMode = false
			if d.Behavior == Ask {
				p.Reason = "the command cannot be analysed, so " + d.Reason
			}
		}
		if d.Rule == nil && d.Behavior != Allow && sub.danger != "" {
			// A prefix rule that would have approved the command does not approve its
			// dangerous form: a safety check, not the mode's own answer.
			if r := e.vetoedAllow(sub); r != nil {
				p.ByMode = false
				p.Reason = fmt.Sprintf("%s does not approve this form (%s), so %s", r.describe(), sub.danger, d.Reason)
			}
		}
		parts = append(parts, p)
		switch {
		case e.cfg.NoSandbox && (sub.opaque || sub.Unknown) && e.HasFileDenyRules():
			parts = append(parts, Part{Subject: sub.Text, Behavior: Ask,
				Reason: "no sandbox is available, and what this command reads and writes cannot be checked against the file deny rules"})
		}
		parts = append(parts, e.operandParts(sub, ld, ctx)...)
	}
	if len(cmd.Subs) == 0 {
		d := e.classMode(ClassExecute)()
		parts = append(parts, Part{Subject: src, Behavior: d.Behavior, Reason: d.Reason, ByMode: d.ByMode})
	}
	for _, t := range cmd.Writes {
		if t.Tilde && cmd.homeUnknown {
			t.Known = false
		}
		forms, isDir, known := targetForms(t, cmd.ChangesDir, ctx)
		d := e.evalPathAs("Write", ClassModify, forms, isDir, known, ctx, true)
		if r := e.toolWideBashAllow(); r != nil && d.Behavior == Ask && d.ByMode && known && e.inside(forms, ctx) {
			// Bash allowed as a whole runs its redirections inside the working
			// directories, as Claude Code does; deny and ask rules and protected paths
			// still stop them, and the mode still decides writes elsewhere.
			d = Decision{Behavior: Allow, Reason: "allowed by " + r.describe(), Rule: r}
		}
		parts = append(parts, Part{Subject: "write to " + t.Text, Behavior: d.Behavior, Reason: d.Reason, Rule: d.Rule, ByMode: d.ByMode})
	}
	for _, t := range cmd.Reads {
		if t.Tilde && cmd.homeUnknown {
			t.Known = false
		}
		forms, isDir, known := targetForms(t, cmd.ChangesDir, ctx)
		d := e.evalPathAs("Read", ClassRead, forms, isDir, known, ctx, true)
		parts = append(parts, Part{Subject: "read of " + t.Text, Behavior: d.Behavior, Reason: d.Reason, Rule: d.Rule, ByMode: d.ByMode})
	}
	return combine(parts)
}

// toolWideBashAllow returns the allow rule `Bash` (or `Bash(*)`), if any.
func (e *Evaluator) toolWideBashAllow() *Rule {
	for _, r := range e.allow {
		if appliesTo(r, "Bash") && r.broken == nil && r.spec.kind == specNone {
			return r
		}
	}
	return nil
}

// subMatcher relates a rule to one sub-command: an allow rule must match the stripped
// form for every run-time value; a deny or ask rule matching any spelling for some
// value is enough to stop it.
func subMatcher(sub *SubCommand) func(*Rule) match {
	return func(r *Rule) match {
		if r.spec.kind != specBash {
			return matchUnknown
		}
		if r.Behavior == Allow {
			if sub.danger != "" && r.spec.bash.hasWildcard() {
				return match{} // only an exact rule approves a dangerous form
			}
			return match{all: r.spec.bash.matchDefinite(sub.allow)}
		}
		var res match
		for _, f := range sub.deny {
			if r.spec.bash.matchDefinite(f) {
				return match{any: true}
			}
			res.unknown = res.unknown || r.spec.bash.matchPossible(f)
		}
		return res
	}
}

// planGate: plan mode refuses every command that is not read-only, whatever the
// allow rules say.
func (e *Evaluator) planGate(sub *SubCommand) func() *Decision {
	return func() *Decision {
		if e.cfg.Mode != ModePlan || sub.readOnly {
			return nil
		}
		d := e.modeDecision(Deny, "refuses commands that are not read-only")
		return &d
	}
}

// vetoedAllow returns an allow rule with a wildcard that matches a dangerous form.
func (e *Evaluator) vetoedAllow(sub *SubCommand) *Rule {
	for _, r := range e.allow {
		if appliesTo(r, "Bash") && r.broken == nil && r.spec.kind == specBash && r.spec.bash.hasWildcard() &&
			r.spec.bash.matchDefinite(sub.allow) {
			return r
		}
	}
	return nil
}

// targetForms places a redirection target. A relative target after a possible change
// of directory cannot be placed.
func targetForms(t Target, changesDir bool, ctx pathContext) ([]string, bool, bool) {
	if !t.Known {
		return nil, false, false
	}
	p := t.Path
	if t.Tilde {
		if !filepath.IsAbs(ctx.home) {
			return nil, false, false
		}
		p = filepath.Join(ctx.home, strings.TrimPrefix(p, "~"))
	} else if !filepath.IsAbs(p) && changesDir {
		return nil, false, false
	}
	return pathForms(p, ctx.cwd, "")
}

// combine folds part decisions: any deny denies, else any ask asks, else allow. The
// result is ByMode only when every part with its behaviour is; the part that speaks
// for it is the first of the worst, preferring one the mode did not decide alone, so
// the reason names what a hook cannot lift.
func combine(parts []Part) Decision {
	worst := 0
	for i, p := range parts {
		r, wr := p.Behavior.rank(), parts[worst].Behavior.rank()
		if r > wr || (r == wr && parts[worst].ByMode && !p.ByMode) {
			worst = i
		}
	}
	w := parts[worst]
	d := Decision{Behavior: w.Behavior, Reason: w.Reason, Rule: w.Rule, ByMode: w.ByMode, Parts: parts}
	if len(parts) > 1 {
		if w.Behavior == Allow {
			var seen []string
			for _, p := range parts {
				if !slices.Contains(seen, p.Reason) {
					seen = append(seen, p.Reason)
				}
			}
			d.Reason = strings.Join(seen, "; ")
		} else {
			d.Reason = w.Subject + ": " + w.Reason
		}
	}
	return d
}

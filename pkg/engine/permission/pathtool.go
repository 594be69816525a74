package permission

import (
	"net/url"
	"path/filepath"
	"slices"
	"strings"
)

// pathArg is the argument naming the file or directory a path tool touches.
func pathArg(s string) string {
	switch s {
	case "Read", "Write", "Edit", "MultiEdit":
		return "file_path"
	case "NotebookRead", "NotebookEdit":
		return "notebook_path"
	case "LS", "Glob", "Grep":
		return "path"
	}
	return ""
}

// optionalPath lists tools whose path defaults to the working directory.
func optionalPath(s string) bool {
	switch s {
	case "Glob", "Grep":
		return true
	}
	return false
}

func (e *Evaluator) evalPathTool(tool string, in toolInput, ctx pathContext) Decision {
	class := ClassOf(tool)
	p, ok := in.str(pathArg(tool))
	if !ok && optionalPath(tool) && !in.maybeHas(pathArg(tool)) {
		p, ok = ctx.cwd, true
	}
	if ok && tool == "Glob" {
		p, ok = globRoot(p, in, ctx.cwd)
	}
	var forms []string
	var isDir bool
	if ok {
		forms, isDir, ok = pathForms(p, ctx.cwd, ctx.home)
	}
	return e.evalPath(tool, class, forms, isDir, ok, ctx)
}

// globRoot is where a Glob can reach: its path, unless the pattern is absolute or
// climbs out with `..`, in which case the pattern's literal leading directories count.
func globRoot(base string, in toolInput, cwd string) (string, bool) {
	pattern, ok := in.str("pattern")
	if !ok {
		return base, !in.maybeHas("pattern")
	}
	segs := strings.Split(pattern, "/")
	if !filepath.IsAbs(pattern) && !slices.Contains(segs, "..") {
		return base, true
	}
	var static []string
	for i, s := range segs {
		if strings.ContainsAny(s, "*?[{\\") {
			if slices.Contains(segs[i:], "..") {
				return "", false
			}
			break
		}
		static = append(static, s)
	}
	root := strings.Join(static, "/")
	if filepath.IsAbs(pattern) {
		if root == "" {
			root = "/"
		}
		return root, true
	}
	if !filepath.IsAbs(base) {
		base = filepath.Join(cwd, base)
	}
	return filepath.Join(base, root), true
}

// evalPath decides a read or a modification of one path. known=false means the path
// could not be determined, which no allow rule and no mode can approve.
func (e *Evaluator) evalPath(tool string, class Class, forms []string, isDir, known bool, ctx pathContext) Decision {
	return e.evalPathAs(tool, class, forms, isDir, known, ctx, false)
}

// evalPathAs is evalPath; operand says the path is a Bash command's (gates.operand).
func (e *Evaluator) evalPathAs(tool string, class Class, forms []string, isDir, known bool, ctx pathContext, operand bool) Decision {
	copies := e.counterparts(forms, ctx)
	m := func(r *Rule) match {
		if r.spec.kind != specPath {
			return matchUnknown
		}
		if !known {
			return matchUnknown
		}
		bases := r.spec.path.bases(ctx, r.Source.Root)
		if len(bases) == 0 {
			return matchUnknown
		}
		res := match{all: true}
		for _, f := range forms {
			if r.spec.path.matches(f, isDir, bases) {
				res.any = true
			} else {
				res.all = false
			}
		}
		for _, f := range copies {
			// The other copy's file: enough for a deny or ask rule, never for an allow.
			res.any = res.any || r.spec.path.matches(f, isDir, bases)
		}
		return res
	}
	g := gates{mode: func() Decision { return e.pathMode(class, forms, known, ctx) }, operand: operand}
	if class == ClassModify {
		g.afterDeny = func() *Decision {
			if e.cfg.Mode != ModePlan {
				return nil
			}
			d := e.modeDecision(Deny, "never allows modifications")
			return &d
		}
		g.afterAsk = func() *Decision {
			if e.cfg.Mode == ModeBypassPermissions || !known || !e.protected(forms, ctx) {
				return nil
			}
			return &Decision{Behavior: Ask, Reason: "writing to a protected path (" + protectedList + ") always asks"}
		}
	}
	return e.pipeline(tool, m, g)
}

func (e *Evaluator) pathMode(class Class, forms []string, known bool, ctx pathContext) Decision {
	if e.cfg.Mode == ModeBypassPermissions {
		return e.modeDecision(Allow, "allows every tool")
	}
	inside := known && e.inside(forms, ctx)
	switch class {
	case ClassRead:
		if inside {
			return e.modeDecision(Allow, "allows reads inside the working directories")
		}
		if !known {
			d := e.modeDecision(Ask, "asks: the path cannot be determined")
			d.ByMode = false
			return d
		}
		return e.modeDecision(Ask, "asks before reading outside the working directories")
	case ClassModify:
		b := ModePolicy(e.cfg.Mode, ClassModify)
		var d Decision
		if b == Allow && !inside {
			d = e.modeDecision(Ask, "asks before modifying outside the working directories")
		} else {
			d = e.modeDecision(b, verbPhrase(b, "modifications"))
		}
		// A path known only at run time is an analysis limit, whatever the mode says.
		if !known {
			d.ByMode = false
			if d.Behavior == Ask {
				d.Reason = e.modeDecision(Ask, "asks: the path cannot be determined").Reason
			}
		}
		return d
	}
	return e.classMode(class)()
}

// urlHost extracts the host a WebFetch call will contact.
func urlHost(in toolInput) (string, bool) {
	raw, ok := in.str("url")
	if !ok {
		return "", false
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Hostname() == "" {
		return "", false
	}
	return strings.TrimSuffix(strings.ToLower(u.Hostname()), "."), true
}

func domainMatches(domain, host string) bool {
	if suffix, ok := strings.CutPrefix(domain, "*."); ok {
		return host == suffix || strings.HasSuffix(host, "."+suffix)
	}
	return host == domain
}

// DeniedPath reports the deny rule, if any, that covers reading (tool "Read") or
// modifying (tool "Edit") the path. Tools that walk directories (Grep, Glob, LS)
// call it per file, since a call is only checked at its root.
func (e *Evaluator) DeniedPath(tool, p, cwd string) (*Rule, bool) {
	if cwd == "" {
		cwd = e.cfg.ProjectRoot
	}
	ctx := pathContext{cwd: cwd, root: e.cfg.ProjectRoot, home: e.cfg.Home}
	forms, isDir, ok := pathForms(p, cwd, e.cfg.Home)
	for _, r := range e.deny {
		if !appliesTo(r, tool) {
			continue
		}
		if r.broken != nil || r.spec.kind == specNone || !ok {
			return r, true
		}
		if r.spec.kind != specPath {
			continue
		}
		bases := r.spec.path.bases(ctx, r.Source.Root)
		for _, f := range slices.Concat(forms, e.counterparts(forms, ctx)) {
			if r.spec.path.matches(f, isDir, bases) {
				return r, true
			}
		}
	}
	return nil, false
}

package permission

import "path/filepath"

// counterparts returns, when the evaluator's project is a copy of another directory
// (Config.CopyOf: a worktree job's worktree), each form's counterpart in the other
// copy, in every spelling of that copy: a path in the worktree is the same relative
// path in the project, and a path in the project (outside the worktree, which may lie
// inside it) the same relative path in the worktree. Deny and ask rules see them, so
// a rule covers both copies of a file; allow rules never do (they would approve a
// path by another path's name). nil when there is no copy or no form is in either.
func (e *Evaluator) counterparts(forms []string, ctx pathContext) []string {
	if e.cfg.CopyOf == "" || !filepath.IsAbs(e.cfg.CopyOf) || !filepath.IsAbs(e.cfg.ProjectRoot) {
		return nil
	}
	copies, origins := ctx.spellings(e.cfg.ProjectRoot), ctx.spellings(e.cfg.CopyOf)
	var out []string
	for _, f := range forms {
		to := origins
		rel, ok := relBelow(f, copies)
		if !ok {
			to = copies
			if rel, ok = relBelow(f, origins); !ok {
				continue
			}
		}
		for _, d := range to {
			out = append(out, filepath.Join(d, rel))
		}
	}
	return out
}

// relBelow returns f relative to the first of dirs that holds it.
func relBelow(f string, dirs []string) (string, bool) {
	for _, d := range dirs {
		if within(f, d) {
			rel, err := filepath.Rel(d, f)
			return rel, err == nil
		}
	}
	return "", false
}

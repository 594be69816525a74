package permission

import (
	"io/fs"
	"path/filepath"
)

// Tree writes without the sandbox. An extractor, git writing its work tree, a patch,
// a recursive copy or delete writes below a directory under names the command line
// does not show. With the sandbox, the operating system keeps those writes out of the
// denied and protected paths; without it (Config.NoSandbox) the checker must find them
// itself: the entries a copy or delete will touch are walked and checked one by one,
// and names it cannot see (an archive's members, git's history, a patch's files) may be
// anything, so a tree write of those asks while a protected path or an Edit rule could
// be among them (every mode but bypassPermissions, and there when an Edit rule exists).

// treeParts checks a sub-command's tree writes.
func (e *Evaluator) treeParts(sub *SubCommand, ld lineDirs, ctx pathContext) []Part {
	if !e.cfg.NoSandbox || len(sub.trees) == 0 || e.cfg.Mode == ModeBypassPermissions && !e.hasWriteRules {
		return nil
	}
	var parts []Part
	for _, t := range sub.trees {
		if p, stop := e.treePart(t, ld, ctx); stop {
			parts = append(parts, p)
		}
	}
	return parts
}

func (e *Evaluator) treePart(t tree, ld lineDirs, ctx pathContext) (Part, bool) {
	subject := "write below " + renderTokens(t.dest.toks)
	ask := func(why string) (Part, bool) {
		return Part{Subject: subject, Behavior: Ask,
			Reason: "no sandbox is available, and " + why + ", which may be protected or denied"}, true
	}
	if t.kind == treeUnseen {
		return ask("the command writes files there under names we cannot see (from an archive, git's objects or a patch)")
	}
	dests, known := e.place(t.dest, ld, ctx)
	if !known {
		return ask("the directory is known only at run time")
	}
	srcs := dests
	if t.kind == treeCopy {
		if srcs, known = e.place(t.src, ld, ctx); !known {
			return ask("what it copies is known only at run time")
		}
	}
	for _, s := range srcs {
		if len(s.forms) == 0 || !s.isDir {
			continue // a file: its destination is among the command's writes already
		}
		root := s.forms[len(s.forms)-1] // the resolved spelling: the directory walked
		rels, complete := walkNames(root, ctx)
		if !complete {
			return ask("the entries it writes below " + root + " cannot all be checked")
		}
		for _, d := range dests {
			if len(d.forms) == 0 {
				continue
			}
			bases := []string{d.forms[0]}
			if t.kind == treeCopy {
				bases = append(bases, filepath.Join(d.forms[0], filepath.Base(s.forms[0])))
			}
			for _, rel := range rels {
				for _, b := range bases {
					forms, isDir, ok := pathFormsWith(filepath.Join(b, rel), "/", "", ctx.resolve)
					if !ok || !ctx.spend(1) {
						return ask("the entries it writes below " + b + " cannot all be checked")
					}
					entry := litWord(filepath.Join(b, rel))
					if p, kind := e.placedStop("Write", entry, []operand{{forms: forms, isDir: isDir}}, true, ctx); kind != stopNone {
						p.Subject = subject + " (" + filepath.Join(b, rel) + ")"
						return p, true
					}
				}
			}
		}
	}
	return Part{}, false
}

// walkNames lists the entries below dir, relative to it, as a recursive copy or delete
// meets them: symlinks are entries, never followed. complete is false past the bound
// (maxFloatingWalk, the call's budget) or when a directory cannot be read.
func walkNames(dir string, ctx pathContext) (rels []string, complete bool) {
	complete = true
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			complete = false
			return filepath.SkipAll
		}
		if p == dir {
			return nil
		}
		if len(rels) >= maxFloatingWalk || !ctx.spend(1) {
			complete = false
			return filepath.SkipAll
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			complete = false
			return filepath.SkipAll
		}
		rels = append(rels, rel)
		return nil
	})
	return rels, complete
}

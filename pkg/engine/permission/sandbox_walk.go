package permission

import (
	"os"
	"path/filepath"
	"strings"
)

// A SandboxWalk answers SandboxDenies for the entries of one walk of a file tree, as the
// command sandbox asks after every command. SandboxDenies resolves every component of
// its path (an lstat each) and is asked several times an entry; a walk resolves each
// directory once for all its entries and each entry once for all its questions, so an
// entry costs an lstat and a stat. It is for one goroutine and one walk: what it learnt
// of the tree, and where each rule is anchored, is not checked again.
type SandboxWalk struct {
	e        *Evaluator
	resolved map[string]resolution // by clean absolute path
	forms    map[string]entryForms // by the path asked about
	bases    map[*Rule][]string    // each deny rule's anchors, resolved once
}

type resolution struct {
	real string
	err  error
}

type entryForms struct {
	forms []string
	isDir bool
	ok    bool
}

// SandboxWalk starts a walk's questions.
func (e *Evaluator) SandboxWalk() *SandboxWalk {
	return &SandboxWalk{e: e, resolved: map[string]resolution{}, forms: map[string]entryForms{}, bases: map[*Rule][]string{}}
}

// Denies is SandboxDenies(tool, p) as the tree is now.
func (w *SandboxWalk) Denies(tool, p string) bool {
	f, ok := w.forms[p]
	if !ok {
		f.forms, f.isDir, f.ok = pathFormsWith(p, w.e.cfg.ProjectRoot, w.e.cfg.Home, w.resolve)
		w.forms[p] = f
	}
	return f.ok && w.e.sandboxDeniesForms(tool, f.forms, f.isDir, w.basesOf)
}

func (w *SandboxWalk) basesOf(r *Rule) []string {
	b, ok := w.bases[r]
	if !ok {
		b = w.e.sandboxBases(r)
		w.bases[r] = b
	}
	return b
}

// resolve is resolve(abs) with the resolutions of abs's directories reused. A path that
// is not clean, is in /proc, or whose last component is a link is resolved whole: the
// cases resolve treats with care.
func (w *SandboxWalk) resolve(abs string) (string, error) {
	if r, ok := w.resolved[abs]; ok {
		return r.real, r.err
	}
	dir, base := filepath.Dir(abs), filepath.Base(abs)
	if abs != filepath.Clean(abs) || dir == abs || strings.HasPrefix(abs, "/proc/") || abs == "/proc" {
		r, err := resolve(abs)
		w.resolved[abs] = resolution{r, err}
		return r, err
	}
	parent, err := w.resolve(dir)
	if err != nil {
		w.resolved[abs] = resolution{"", err}
		return "", err
	}
	next := filepath.Join(parent, base)
	real := next
	switch fi, lerr := os.Lstat(next); {
	case strings.HasPrefix(next, "/proc/"):
		real, err = resolve(abs) // a parent led into /proc: resolve's rules for it
	case lerr == nil && fi.Mode()&os.ModeSymlink != 0:
		real, err = resolve(next)
	}
	// A missing entry: nothing below it can be a link, so resolve finishes lexically too.
	w.resolved[abs] = resolution{real, err}
	return real, err
}

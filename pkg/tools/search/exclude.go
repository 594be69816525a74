package search

import (
	"context"
	"path/filepath"
	"strings"
)

// Exclude is a caller's path filter for Grep and Glob (GrepConfig.Exclude,
// GlobConfig.Exclude): it reports whether an absolute path must stay out of reach. The
// engine builds it from the permission rules, so that a `Read(./.env)` deny rule holds for
// every file a search walks over, not only for the directory the call names. It is called
// from several goroutines at once and must be safe for that. nil excludes nothing.
//
// An excluded file is never opened by the tools, matched, counted or listed. An excluded
// directory is not entered: in gitignore syntax, which permission path rules use, nothing
// below an excluded directory can be re-included. The file or directory a call names is
// checked too: excluded, it yields no results.
type Exclude func(absPath string) bool

func (x Exclude) excludes(abs string) bool { return x != nil && x(abs) }

// callExcludeKey is the context key of WithCallExclude.
type callExcludeKey struct{}

// WithCallExclude is ctx carrying x, a filter for the one Grep or Glob call run with ctx,
// besides the tool's own: a subagent's tools are built when its job starts, and the
// engine walks the deny rules again for each of its search calls, so a denied file an
// earlier command of the job made is left out too. nil carries nothing.
func WithCallExclude(ctx context.Context, x Exclude) context.Context {
	if x == nil {
		return ctx
	}
	return context.WithValue(ctx, callExcludeKey{}, x)
}

// forCall is x and the filter ctx carries (WithCallExclude): a path either excludes
// stays out.
func (x Exclude) forCall(ctx context.Context) Exclude {
	call, _ := ctx.Value(callExcludeKey{}).(Exclude)
	switch {
	case call == nil:
		return x
	case x == nil:
		return call
	}
	return func(abs string) bool { return x(abs) || call(abs) }
}

// excludingPolicy adds the filter to a walk policy. The filter runs only on entries the
// policy accepts, since it may cost a few system calls per path.
type excludingPolicy struct {
	walkPolicy
	exclude Exclude
}

func (p excludingPolicy) descend(e entry) bool {
	return p.walkPolicy.descend(e) && !p.exclude.excludes(e.abs)
}

func (p excludingPolicy) include(e entry) bool {
	return p.walkPolicy.include(e) && !p.exclude.excludes(e.abs)
}

func withExclude(p walkPolicy, x Exclude) walkPolicy {
	if x == nil {
		return p
	}
	return excludingPolicy{walkPolicy: p, exclude: x}
}

// resultFilter drops, from results found without the filter (ripgrep's), what the walker
// would have left out: a file that is excluded or lies below an excluded directory between
// the search root and it. Directory answers are remembered. Not safe for concurrent use.
type resultFilter struct {
	root    string
	exclude Exclude
	dirs    map[string]bool
}

func newResultFilter(root string, x Exclude) *resultFilter {
	return &resultFilter{root: root, exclude: x, dirs: map[string]bool{}}
}

// keep reports whether the result at abs may be used.
func (f *resultFilter) keep(abs string) bool {
	if f.exclude == nil {
		return true
	}
	if abs == f.root {
		return !f.exclude(abs)
	}
	prefix := f.root
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	rel, ok := strings.CutPrefix(abs, prefix)
	if !ok {
		return false // not below the root: nothing the walker would have reached
	}
	dir := f.root
	segs := strings.Split(rel, string(filepath.Separator))
	for _, s := range segs[:len(segs)-1] {
		dir = filepath.Join(dir, s)
		ex, seen := f.dirs[dir]
		if !seen {
			ex = f.exclude(dir)
			f.dirs[dir] = ex
		}
		if ex {
			return false
		}
	}
	return !f.exclude(abs)
}

package search

import (
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// overrideGlob is Grep's glob parameter with ripgrep's --glob semantics: gitignore-style
// syntax where a match means "search this" ("!" inverts it); a pattern without a slash
// matches a name at any depth, one with a slash matches the path from the search root.
type overrideGlob struct {
	pattern  string
	negate   bool
	dirOnly  bool
	anchored bool
}

func parseOverride(g string) (overrideGlob, error) {
	o := overrideGlob{}
	if strings.HasPrefix(g, "!") {
		o.negate = true
		g = g[1:]
	}
	if strings.HasSuffix(g, "/") {
		o.dirOnly = true
		g = strings.TrimRight(g, "/")
	}
	if strings.Contains(g, "/") {
		o.anchored = true
		g = strings.TrimPrefix(g, "/")
	}
	if g == "" || !doublestar.ValidatePattern(g) {
		return o, fmt.Errorf("invalid glob %q", g)
	}
	o.pattern = g
	return o, nil
}

func (o overrideGlob) matches(e entry) bool {
	if o.dirOnly && !e.isDir {
		return false
	}
	subject := e.name
	if o.anchored {
		subject = e.rel
	}
	ok, _ := doublestar.Match(o.pattern, subject)
	return ok
}

// grepPolicy decides, like ripgrep's walker, which entries Grep searches: the glob decides
// first (a match includes or excludes outright; with a positive glob, a file it does not
// match is excluded), then .gitignore, then the type filter.
type grepPolicy struct {
	glob      *overrideGlob
	typeGlobs []string
}

func (p grepPolicy) verdict(e entry) bool {
	if p.glob != nil {
		if p.glob.matches(e) {
			return !p.glob.negate
		}
		if !p.glob.negate && !e.isDir {
			return false
		}
	}
	if e.ignored {
		return false
	}
	if p.typeGlobs != nil && !e.isDir {
		return matchesAny(p.typeGlobs, e.name)
	}
	return true
}

func (p grepPolicy) descend(e entry) bool { return p.verdict(e) }
func (p grepPolicy) include(e entry) bool { return p.verdict(e) }

func matchesAny(globs []string, name string) bool {
	for _, g := range globs {
		if ok, _ := doublestar.Match(g, name); ok {
			return true
		}
	}
	return false
}

package plugins

import (
	"context"
	"sort"
	"strings"
)

// Found is one marketplace entry Search matched.
type Found struct {
	Marketplace string
	Entry       Entry
}

// ID is the entry's plugin id, name@marketplace.
func (f Found) ID() string { return f.Entry.Name + "@" + f.Marketplace }

// Search lists the plugins of every known marketplace (declared in the settings, added
// by command, or Claude Code's) whose name, description, category, keywords or tags
// contain query (any case; "" lists all). Marketplaces that cannot be read are
// problems. Nothing is fetched.
func (m Manager) Search(ctx context.Context, query string) ([]Found, []Problem) {
	o := m.Opts
	o.Fetch = false
	r := &resolver{opts: o, user: UserStore(o.Home), project: ProjectStore(o.Cwd), markets: map[string]*openMarket{}}
	names := map[string]bool{}
	for n := range o.Declared {
		names[n] = true
	}
	for _, st := range []Store{r.user, ClaudeStore(o.Home)} {
		known, _ := st.KnownMarketplaces()
		for n := range known {
			names[n] = true
		}
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	q := strings.ToLower(query)
	var out []Found
	var problems []Problem
	for _, n := range sorted {
		om := r.marketplace(ctx, n)
		if om.err != nil {
			problems = append(problems, Problem{Marketplace: n, Path: om.path, Err: om.err})
			continue
		}
		for _, e := range om.m.Plugins {
			hay := strings.ToLower(strings.Join(append(append([]string{e.Name, e.Description, e.Category}, e.Keywords...), e.Tags...), "\n"))
			if strings.Contains(hay, q) {
				out = append(out, Found{Marketplace: n, Entry: e})
			}
		}
	}
	return out, problems
}

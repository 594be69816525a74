package permission

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// maxFloatingWalk bounds the entries floatingBelow reads for one directory; past it the
// rule may apply (ask). A variable so tests can lower it.
var maxFloatingWalk = 20000

// floatingBelow looks below dir, which a command reads recursively, for an entry a
// floating path pattern (`.env`, matching at any depth) matches: any when one is there,
// unknown when the walk cannot finish (the bound or the call's filesystem budget runs
// out, a directory cannot be read, a followed symlink leads to a directory), nothing
// otherwise. It walks as the command does: hidden entries left out when the command
// skips them, symlinks followed only when it follows them, files filtered by its
// --include globs. As with every path check, the tree can change between the check
// and the command.
func floatingBelow(r *Rule, dir string, bases []string, ctx pathContext) match {
	res, seen := match{}, 0
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			res = matchUnknown
			return filepath.SkipAll
		}
		if p == dir {
			return nil
		}
		if ctx.skipsHidden && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if seen++; seen > maxFloatingWalk || !ctx.spend(1) {
			res = matchUnknown
			return filepath.SkipAll
		}
		isLink := d.Type()&fs.ModeSymlink != 0
		if isLink && !ctx.followsLinks {
			return nil // grep -r, rg, cp -r and tar do not open what a link below points to
		}
		if !d.IsDir() && !isLink && !included(d.Name(), ctx.includes) {
			return nil
		}
		if r.spec.path.matches(p, d.IsDir(), bases) {
			res = match{any: true}
			return filepath.SkipAll
		}
		if isLink {
			st, err := os.Stat(p)
			if err != nil || st.IsDir() {
				res = matchUnknown // a followed link to a directory is not walked
				return filepath.SkipAll
			}
			if t, err := filepath.EvalSymlinks(p); err == nil && r.spec.path.matches(t, false, bases) {
				res = match{any: true}
				return filepath.SkipAll
			}
		}
		return nil
	})
	return res
}

// included reports whether a file named name passes --include globs (none: every file).
// A glob that does not parse includes the file.
func included(name string, globs []string) bool {
	if len(globs) == 0 {
		return true
	}
	for _, g := range globs {
		if ok, err := filepath.Match(g, name); ok || err != nil {
			return true
		}
	}
	return false
}

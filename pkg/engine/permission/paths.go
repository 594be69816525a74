package permission

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/robota-sdk/robota-go/internal/lazy"
)

// anchor says which directory a path specifier is relative to.
type anchor int

const (
	anchorCwd  anchor = iota // `path`, `./path`: the current working directory
	anchorRoot               // `/path`: the project root of the rule's settings file
	anchorAbs                // `//path`: the filesystem root
	anchorHome               // `~/path`: the home directory
)

// pathPattern is a Read/Edit specifier: gitignore syntax relative to its anchor.
type pathPattern struct {
	anchor  anchor
	pattern gitignore.Pattern
	folded  gitignore.Pattern // the pattern in lower case, for case-insensitive filesystems
	// anchored patterns (with a slash) match below their anchor only under prefix,
	// their leading literal segments: a recursive read of a directory above that
	// subtree reads what they match. Floating patterns (`.env`) can match anywhere.
	anchored bool
	prefix   []string
}

// foldCase says the filesystems here ignore case, as macOS's and Windows' do by
// default: .ENV is .env, so path rules and protected directories compare in lower
// case. Tests switch it.
var foldCase = runtime.GOOS == "darwin" || runtime.GOOS == "windows"

func compilePathPattern(spec string) (pathPattern, error) {
	var p pathPattern
	var rest string
	switch {
	case spec == "~" || strings.HasPrefix(spec, "~/"):
		p.anchor, rest = anchorHome, "/"+strings.TrimPrefix(strings.TrimPrefix(spec, "~"), "/")
	case strings.HasPrefix(spec, "//"):
		p.anchor, rest = anchorAbs, spec[1:]
	case strings.HasPrefix(spec, "/"):
		p.anchor, rest = anchorRoot, spec
	case strings.HasPrefix(spec, "./"):
		p.anchor, rest = anchorCwd, spec[1:]
	default:
		p.anchor, rest = anchorCwd, spec
	}
	if strings.HasPrefix(spec, "~") && p.anchor != anchorHome {
		return p, fmt.Errorf("path specifier %q: only ~/ is supported", spec)
	}
	if rest == "/" || rest == "" {
		rest = "/**"
	}
	segs := strings.Split(rest, "/")
	for i, s := range segs {
		if s != "**" && strings.Contains(s, "**") {
			// gitignore treats `**` inside a segment as `*`; go-git would never match it.
			for strings.Contains(s, "**") {
				s = strings.ReplaceAll(s, "**", "*")
			}
			segs[i] = s
		}
		if _, err := filepath.Match(segs[i], ""); err != nil {
			return p, fmt.Errorf("path specifier %q: %w", spec, err)
		}
	}
	p.anchored = strings.HasPrefix(rest, "/") || strings.Contains(strings.TrimSuffix(rest, "/"), "/")
	for _, seg := range segs {
		if seg == "" {
			continue
		}
		if strings.ContainsAny(seg, "*?[\\") {
			break
		}
		p.prefix = append(p.prefix, seg)
	}
	p.pattern = gitignore.ParsePattern(strings.Join(segs, "/"), nil)
	p.folded = gitignore.ParsePattern(strings.ToLower(strings.Join(segs, "/")), nil)
	return p, nil
}

// pathContext carries the directories path evaluation needs for one call.
type pathContext struct {
	cwd, root, home string
	// spelled caches the spellings of the anchor and working directories for the
	// call: a Bash line checks many paths against the same few directories.
	spelled map[string][]string
	// recursive: the reads being checked include everything below a directory.
	recursive bool
	// skipsHidden, followsLinks and includes: how those recursive reads walk.
	skipsHidden, followsLinks bool
	includes                  []string
	// budget bounds the filesystem work one call may do placing a Bash line's paths
	// (directory entries read for globs, paths resolved); past it paths are unknown.
	budget *int
}

// spend takes n units from the call's budget and reports whether they were there.
func (ctx pathContext) spend(n int) bool {
	if ctx.budget == nil {
		return true
	}
	*ctx.budget -= n
	return *ctx.budget >= 0
}

// resolve is resolve(raw) with the parent directory's resolution cached for the
// call: a line names many files in the same few directories.
func (ctx pathContext) resolve(raw string) (string, error) {
	dir, base := filepath.Split(raw)
	if ctx.spelled == nil || dir == "" || base == "" || base == "." || base == ".." {
		return resolve(raw)
	}
	key := "\x00resolved:" + dir
	var rd string
	if c, ok := ctx.spelled[key]; ok {
		rd = c[0]
	} else {
		r, err := resolve(dir)
		if err != nil {
			return resolve(raw)
		}
		rd = r
		ctx.spelled[key] = []string{r}
	}
	next := filepath.Join(rd, base)
	if fi, err := os.Lstat(next); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return resolve(raw)
	}
	return next, nil
}

// spellings is spellings(abs), cached for the call.
func (ctx pathContext) spellings(abs string) []string {
	if ctx.spelled == nil {
		return spellings(abs)
	}
	if s, ok := ctx.spelled[abs]; ok {
		return s
	}
	s := spellings(abs)
	ctx.spelled[abs] = s
	return s
}

// base returns the anchor directories in both their literal and symlink-resolved
// spellings, so a path is compared like with like.
func (p pathPattern) bases(ctx pathContext, ruleRoot string) []string {
	var b string
	switch p.anchor {
	case anchorCwd:
		b = ctx.cwd
	case anchorRoot:
		b = ruleRoot
		if b == "" {
			b = ctx.root
		}
	case anchorAbs:
		b = "/"
	case anchorHome:
		b = ctx.home
	}
	if b == "" || !filepath.IsAbs(b) {
		return nil
	}
	return ctx.spellings(b)
}

// matches reports whether the absolute path matches the pattern relative to any of
// the anchor's spellings.
func (p pathPattern) matches(abs string, isDir bool, bases []string) bool {
	pattern := p.pattern
	if foldCase {
		pattern, abs = p.folded, strings.ToLower(abs)
	}
	for _, b := range bases {
		if foldCase {
			b = strings.ToLower(b)
		}
		rel, err := filepath.Rel(b, abs)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") {
			continue
		}
		if pattern.Match(strings.Split(rel, "/"), isDir) == gitignore.Exclude {
			return true
		}
	}
	return false
}

// contains reports whether a recursive read of dir reaches the subtree an anchored
// pattern matches in (dir is its prefix directory or above it).
func (p pathPattern) contains(dir string, bases []string) bool {
	if !p.anchored {
		return false
	}
	if foldCase {
		dir = strings.ToLower(dir)
	}
	for _, b := range bases {
		sub := filepath.Join(append([]string{b}, p.prefix...)...)
		if foldCase {
			sub = strings.ToLower(sub)
		}
		if within(sub, dir) {
			return true
		}
	}
	return false
}

// spellings returns the cleaned absolute path and, if different, its symlink-resolved form.
func spellings(abs string) []string {
	clean := filepath.Clean(abs)
	out := []string{clean}
	if r, err := resolve(abs); err == nil && r != clean {
		out = append(out, r)
	}
	return out
}

var errSymlinkLoop = errors.New("too many levels of symbolic links")

// errProcLink: a path through one of /proc's links, which depend on the process.
var errProcLink = errors.New("a /proc link leads where the reading process is")

// resolve resolves symlinks the way the kernel does: component by component, with
// `..` applied after the component before it has been resolved (so link/.. is the
// parent of the link's target, not the link's directory). The part of the path that
// does not exist is appended lexically; a dangling link resolves to its target.
func resolve(abs string) (string, error) {
	if !filepath.IsAbs(abs) {
		return "", fmt.Errorf("resolve %q: not absolute", abs)
	}
	pending := strings.Split(abs, "/")
	resolved := "/"
	links := 0
	for len(pending) > 0 {
		c := pending[0]
		pending = pending[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, c)
		fi, err := os.Lstat(next)
		if err != nil {
			if strings.HasPrefix(next, "/proc/") && len(pending) > 0 {
				// Another process's directory, there when the command runs (its own).
				return "", errProcLink
			}
			// Nothing below a missing directory can be a link: finish lexically.
			return filepath.Join(append([]string{next}, pending...)...), nil
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			resolved = next
			continue
		}
		if links++; links > 255 {
			return "", errSymlinkLoop
		}
		if strings.HasPrefix(next, "/proc/") {
			// /proc/PID/cwd, root, exe ... lead where the process that opens them is (the
			// command's working directory), not where they lead for us. /proc/self only
			// names a process; a descriptor (fd/N, /dev/stdin) is what the line's own
			// redirections made it, and those are checked: it stays as written.
			switch segs := strings.Split(next, "/"); {
			case len(segs) >= 2 && segs[len(segs)-2] == "fd":
				return filepath.Join(append([]string{next}, pending...)...), nil
			case segs[len(segs)-1] != "self" && segs[len(segs)-1] != "thread-self":
				return "", errProcLink
			}
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", fmt.Errorf("resolve %q: %w", next, err)
		}
		if filepath.IsAbs(target) {
			resolved = "/"
		}
		pending = append(strings.Split(target, "/"), pending...)
	}
	return resolved, nil
}

// pathForms returns every spelling under which a tool's path argument may be reached:
// the lexical absolute path and its symlink resolution, plus the home-expanded forms
// when it starts with `~/` (in case the tool expands it). ok=false when the path
// cannot be placed at all.
func pathForms(p, cwd, home string) (forms []string, isDir bool, ok bool) {
	return pathFormsWith(p, cwd, home, resolve)
}

// pathFormsWith is pathForms with the symlink resolver given.
func pathFormsWith(p, cwd, home string, resolve func(string) (string, error)) (forms []string, isDir bool, ok bool) {
	if p == "" || strings.ContainsRune(p, 0) {
		return nil, false, false
	}
	var raws []string
	if filepath.IsAbs(p) {
		raws = append(raws, p)
	} else if filepath.IsAbs(cwd) {
		raws = append(raws, filepath.Join(cwd, p))
	}
	if (p == "~" || strings.HasPrefix(p, "~/")) && filepath.IsAbs(home) {
		raws = append(raws, filepath.Join(home, p[1:]))
	}
	if len(raws) == 0 {
		return nil, false, false
	}
	seen := map[string]bool{}
	for _, raw := range raws {
		// Lexical cleaning of `..` is only right when no link precedes it; the
		// resolved spelling covers the other reading.
		for _, f := range []string{filepath.Clean(raw)} {
			if !seen[f] {
				seen[f] = true
				forms = append(forms, f)
			}
		}
		r, err := resolve(raw)
		if err != nil {
			return nil, false, false
		}
		if !seen[r] {
			seen[r] = true
			forms = append(forms, r)
		}
		if fi, err := os.Stat(r); err == nil && fi.IsDir() {
			isDir = true
		}
	}
	return forms, isDir, true
}

// within reports whether abs is dir or below it.
func within(abs, dir string) bool {
	if dir == "/" {
		return true
	}
	return abs == dir || strings.HasPrefix(abs, dir+"/")
}

// protectedSegments are directories whose contents configure the agent or run code on
// their own (git hooks, settings with hooks and rules, agents, skills, editor tasks):
// writing there is never auto-allowed by a mode or a broad rule. Claude Code 2.1
// protects .git, .claude, .vscode and .idea; .robota is ours.
func protectedSegments(s string) bool {
	switch s {
	case ".git", ".claude", ".robota", ".vscode", ".idea":
		return true
	}
	return false
}

// protectedBelowAgents are the directories of .agents robota loads definitions from
// (skills with allowed-tools, agents, commands): a model that writes one there grants
// itself tools in every later session. .agents/tasks stays writable.
func protectedBelowAgents(s string) bool {
	switch s {
	case "skills", "agents", "commands":
		return true
	}
	return false
}

// protectedFiles are files that run code or configure tools wherever they are: shell
// start-up files, git configuration, MCP server lists. Claude Code 2.1's list, plus
// .claude.json and the other start-up files of bash and zsh.
func protectedFiles(s string) bool {
	switch s {
	case ".gitconfig", ".gitmodules", ".bashrc", ".bash_profile", ".bash_login", ".zshrc", ".zprofile", ".zshenv",
		".zlogin", ".profile", ".ripgreprc", ".mcp.json", ".claude.json":
		return true
	}
	return false
}

// shortName is an NTFS 8.3 alias of a protected directory (.git is GIT~1).
var shortName = lazy.NewRegexp(`^(git|claude|robota|vscode)~[0-9]+$`)

// isProtected reports a protected directory among the path's components. Whatever
// the platform it ignores case (macOS and Windows, vfat and casefolded ext4 see .GIT
// as .git), what Windows drops or reads as a stream (`.git.`, `.git `,
// `.git::$INDEX_ALLOCATION`) and 8.3 short names: a false alarm only asks.
func isProtected(abs string) bool {
	segs := strings.FieldsFunc(abs, func(r rune) bool { return r == '/' || r == '\\' })
	for i, seg := range segs {
		seg, _, _ = strings.Cut(strings.ToLower(seg), ":")
		seg = strings.TrimRight(seg, ". ")
		if protectedSegments(seg) || shortName.MatchString(seg) || i == len(segs)-1 && protectedFiles(seg) {
			return true
		}
		if seg == ".agents" && i+1 < len(segs) && protectedBelowAgents(strings.ToLower(segs[i+1])) {
			return true
		}
	}
	return false
}

package permission

import (
	"path"
	"slices"
	"strings"
)

// The sandbox and its fallback. Where robota runs commands in the operating system's
// sandbox (pkg/sandbox), a file deny rule holds against whatever a command does once it
// runs. Where it cannot (Config.NoSandbox), a command whose file access the checker
// cannot fully know asks, while a file deny rule is in force: the checker alone cannot
// promise more.

// interpreters run code given on their command line or read at run time.
var interpreters = map[string]bool{"python": true, "python2": true, "python3": true, "node": true, "nodejs": true,
	"deno": true, "bun": true, "perl": true, "ruby": true, "php": true, "lua": true, "luajit": true, "Rscript": true,
	"tclsh": true, "wish": true, "pwsh": true, "julia": true, "guile": true, "racket": true, "sbcl": true, "osascript": true,
	"java": true, "jshell": true, "groovy": true, "scala": true, "elixir": true, "erl": true, "swift": true}

// gitKnown are git subcommands whose file access the command table follows (their path
// operands); every other one may print history (log -p, grep, archive, fast-export,
// format-patch, diff, show, cat-file) or write the work tree or .git from it (checkout,
// restore, stash, apply, am, init --template, clone ...).
var gitKnown = map[string]bool{"status": true, "add": true, "rm": true, "mv": true, "commit": true, "branch": true,
	"remote": true, "fetch": true, "push": true, "tag": true, "rev-parse": true, "ls-files": true, "config": true,
	"describe": true, "version": true, "help": true}

// opaqueProgram reports whether a simple command's file access is beyond the table.
func opaqueProgram(words []word, ef effects) bool {
	if ef.unknown || len(words) == 0 || !words[0].static {
		return true
	}
	name := path.Base(words[0].lit)
	if interpreters[name] || strings.HasPrefix(name, "python3.") {
		return true
	}
	if name == "git" {
		sub, known := gitSubcommand(words[1:])
		return !known || !gitKnown[sub]
	}
	return false
}

// gitSubcommand finds git's subcommand after its own options; known is false when it is
// only known at run time.
func gitSubcommand(args []word) (sub string, known bool) {
	for i := 0; i < len(args); i++ {
		w := args[i]
		if !w.static {
			return "", false
		}
		switch {
		case w.lit == "-C" || w.lit == "-c" || w.lit == "--git-dir" || w.lit == "--work-tree" || w.lit == "--namespace":
			i++ // the option's value
		case strings.HasPrefix(w.lit, "-"):
		default:
			return w.lit, true
		}
	}
	return "", true
}

// HasFileDenyRules reports whether a Read or Edit deny rule with a specifier is in force:
// the sandbox then has something to enforce, and without it the fallback asks.
func (e *Evaluator) HasFileDenyRules() bool {
	for _, r := range e.deny {
		if r.broken == nil && r.spec.kind == specPath && (appliesTo(r, "Read") || appliesTo(r, "Write")) {
			return true
		}
	}
	return false
}

// SandboxDenies reports whether a deny rule with a specifier covers reading (tool "Read")
// or modifying (tool "Edit") the existing path p: the sandbox hides, or makes read-only,
// what it reports. Tool-wide rules name tools, not paths (gates.operand).
func (e *Evaluator) SandboxDenies(tool, p string) bool {
	ctx := pathContext{cwd: e.cfg.ProjectRoot, root: e.cfg.ProjectRoot, home: e.cfg.Home}
	forms, isDir, ok := pathForms(p, e.cfg.ProjectRoot, e.cfg.Home)
	if !ok {
		return false
	}
	for _, r := range e.deny {
		if !appliesTo(r, tool) || r.broken != nil || r.spec.kind != specPath {
			continue
		}
		bases := r.spec.path.bases(ctx, r.Source.Root)
		for _, f := range slices.Concat(forms, e.counterparts(forms, ctx)) {
			if r.spec.path.matches(f, isDir, bases) {
				return true
			}
		}
	}
	return false
}

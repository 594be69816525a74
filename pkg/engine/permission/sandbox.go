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
func interpreters(s string) bool {
	switch s {
	case "python", "python2", "python3", "node", "nodejs", "deno", "bun", "perl", "ruby", "php", "lua", "luajit",
		"Rscript", "tclsh", "wish", "pwsh", "julia", "guile", "racket", "sbcl", "osascript", "java", "jshell",
		"groovy", "scala", "elixir", "erl", "swift":
		return true
	}
	return false
}

// gitKnown are git subcommands whose file access the command table follows (their path
// operands); every other one may print history (log -p, grep, archive, fast-export,
// format-patch, diff, show, cat-file) or write the work tree or .git from it (checkout,
// restore, stash, apply, am, init --template, clone ...).
func gitKnown(s string) bool {
	switch s {
	case "status", "add", "rm", "mv", "commit", "branch", "remote", "fetch", "push", "tag", "rev-parse",
		"ls-files", "config", "describe", "version", "help":
		return true
	}
	return false
}

// opaqueProgram reports whether a simple command's file access is beyond the table:
// besides unknown programs and interpreters, a known command in a dangerous form that
// runs a program or that we do not fully read (git -c core.pager=..., find -exec, an
// option we do not know), and the declaration builtins setting a variable that steers
// what programs run (export PAGER=...).
func opaqueProgram(words []word, ef effects) bool {
	if ef.unknown || len(words) == 0 || !words[0].static {
		return true
	}
	if ef.danger != "" && !dangerIsWrite(ef) {
		return true
	}
	name := path.Base(words[0].lit)
	switch name {
	case "export", "declare", "typeset", "local", "readonly":
		return steersPrograms(words[1:])
	}
	if interpreters(name) || strings.HasPrefix(name, "python3.") {
		return true
	}
	if name == "git" {
		sub, known := gitSubcommand(words[1:])
		return !known || !gitKnown(sub)
	}
	return false
}

// dangerIsWrite: the dangerous form only writes files, and the table names them (sed -i
// FILE, sort -o FILE, find -delete below its paths): its writes are checked as they are.
// Every danger message that is not about writing runs a program or is not fully read.
func dangerIsWrite(ef effects) bool {
	if len(ef.writes) == 0 {
		return false
	}
	for _, w := range []string{" writes ", " edits files in place", " deletes "} {
		if strings.Contains(ef.danger+" ", w) {
			return true
		}
	}
	return false
}

// steeringVars are variables that make programs run other programs or read other
// configuration (pagers, editors, git's and ssh's commands, preloaded libraries, the
// search path, where configuration is read from). Assigned by the line, bare or
// exported, they change what a later command does: outside what the table knows.
func steeringVars(s string) bool {
	switch s {
	case "PAGER", "MANPAGER", "GIT_PAGER", "SYSTEMD_PAGER", "LESSOPEN", "LESSCLOSE", "LESS", "LESSKEY",
		"LESSKEYIN", "LESSEDIT", "MANOPT", "MANPATH", "BROWSER", "EDITOR", "VISUAL", "GIT_EDITOR",
		"GIT_SEQUENCE_EDITOR", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "SSH_ASKPASS",
		"GIT_PROXY_COMMAND", "GIT_EXEC_PATH", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_TEMPLATE_DIR",
		"GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS",
		"LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "PATH", "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4",
		"PROMPT_COMMAND", "HOME", "XDG_CONFIG_HOME", "TAR_OPTIONS", "UNZIP", "UNZIPOPT", "ZIPOPT", "RSYNC_RSH",
		"CURL_HOME", "WGETRC", "PYTHONSTARTUP", "PYTHONPATH", "PERL5OPT", "PERL5LIB", "RUBYOPT", "NODE_OPTIONS",
		"GREP_OPTIONS", "RIPGREP_CONFIG_PATH":
		return true
	}
	return false
}

// steersPrograms reports whether NAME=value words (a bare assignment, export's
// arguments) set a steering variable, or one whose name is known only at run time.
func steersPrograms(ws []word) bool {
	for _, w := range ws {
		name, ok := assignedName(w)
		if !ok {
			return true
		}
		if steeringVars(name) || strings.HasPrefix(name, "GIT_CONFIG_") || strings.HasPrefix(name, "LD_") {
			return true
		}
	}
	return false
}

// assignedName is the NAME of a NAME=value (or NAME+=value, or a bare NAME) word; ok is
// false when the name itself is only known at run time.
func assignedName(w word) (name string, ok bool) {
	var b strings.Builder
	for _, t := range w.toks {
		if t.kind != tokLit {
			return "", false
		}
		if t.r == '=' {
			break
		}
		b.WriteRune(t.r)
	}
	return strings.TrimSuffix(b.String(), "+"), true
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
	forms, isDir, ok := pathForms(p, e.cfg.ProjectRoot, e.cfg.Home)
	if !ok {
		return false
	}
	return e.sandboxDeniesForms(tool, forms, isDir, e.sandboxBases)
}

// sandboxBases are the directories rule r's path is anchored at, for the sandbox's
// questions (relative to the project root).
func (e *Evaluator) sandboxBases(r *Rule) []string {
	ctx := pathContext{cwd: e.cfg.ProjectRoot, root: e.cfg.ProjectRoot, home: e.cfg.Home}
	return r.spec.path.bases(ctx, r.Source.Root)
}

func (e *Evaluator) sandboxDeniesForms(tool string, forms []string, isDir bool, basesOf func(*Rule) []string) bool {
	ctx := pathContext{cwd: e.cfg.ProjectRoot, root: e.cfg.ProjectRoot, home: e.cfg.Home}
	for _, r := range e.deny {
		if !appliesTo(r, tool) || r.broken != nil || r.spec.kind != specPath {
			continue
		}
		bases := basesOf(r)
		for _, f := range slices.Concat(forms, e.counterparts(forms, ctx)) {
			if r.spec.path.matches(f, isDir, bases) {
				return true
			}
		}
	}
	return false
}

// WebFetchDomains are the hosts of the WebFetch(domain:...) allow and deny rules: with
// a sandbox network allow-list in force, Claude Code adds them to the allowed and denied
// domains of commands' network.
func (e *Evaluator) WebFetchDomains() (allow, deny []string) {
	for _, r := range e.allow {
		if r.broken == nil && r.spec.kind == specDomain && r.Tool == "WebFetch" {
			allow = append(allow, r.spec.domain)
		}
	}
	for _, r := range e.deny {
		if r.broken == nil && r.spec.kind == specDomain && strings.EqualFold(r.Tool, "WebFetch") {
			deny = append(deny, r.spec.domain)
		}
	}
	return allow, deny
}

package permission

import (
	"strings"

	"github.com/robota-sdk/robota-go/internal/lazy"
)

// gitSafeConfig are configuration keys that `git -c` may set without running a
// program or changing what git trusts; any other key is a dangerous form (core.pager,
// core.sshCommand, core.fsmonitor, diff.external, alias.*, safe.directory ...).
func gitSafeConfig(s string) bool {
	switch s {
	case "color.ui", "color.diff", "color.status", "color.branch", "color.grep", "core.quotepath", "core.abbrev",
		"core.autocrlf", "core.safecrlf", "core.longpaths", "log.showsignature", "log.decorate", "log.date",
		"advice.detachedhead", "user.name", "user.email", "init.defaultbranch", "i18n.logoutputencoding",
		"column.ui", "diff.noprefix", "diff.renames", "diff.algorithm", "diff.context", "merge.conflictstyle",
		"pull.rebase", "push.default", "commit.gpgsign", "tag.gpgsign", "status.showuntrackedfiles",
		"core.precomposeunicode", "grep.linenumber":
		return true
	case "pager.branch": // listed as not safe: a pager setting can name a program
		return false
	}
	return false
}

// gitReadOnly are subcommands that only read the repository (some only in the forms
// gitListing accepts).
func gitReadOnly(s string) bool {
	switch s {
	case "status", "log", "show", "diff", "blame", "annotate", "grep", "ls-files", "ls-tree", "ls-remote",
		"cat-file", "rev-parse", "rev-list", "describe", "shortlog", "whatchanged", "count-objects", "for-each-ref",
		"merge-base", "name-rev", "show-ref", "var", "version", "help", "check-ignore", "check-attr", "cherry",
		"range-diff", "show-branch", "verify-commit", "verify-tag", "diff-tree", "diff-files", "diff-index":
		return true
	}
	return false
}

// gitListing: these are read-only when they only list.
var gitListing = &lazy.Value[map[string]func(ops []word, opts []string) bool]{Build: func() map[string]func(ops []word, opts []string) bool {
	return map[string]func(ops []word, opts []string) bool{
		"branch": func(ops []word, opts []string) bool {
			return len(ops) == 0 && !anyOf(opts, "-d", "-D", "-m", "-M", "-c", "-C", "-f", "-u", "--delete", "--move", "--copy", "--force", "--set-upstream-to", "--unset-upstream", "--edit-description", "--track", "--no-track", "--create-reflog")
		},
		"tag":    func(ops []word, opts []string) bool { return len(ops) == 0 || anyOf(opts, "-l", "--list") },
		"remote": func(ops []word, _ []string) bool { return len(ops) == 0 || litIn(ops[0], "show", "get-url") },
		"stash":  func(ops []word, _ []string) bool { return len(ops) > 0 && litIn(ops[0], "list", "show") },
		"worktree": func(ops []word, _ []string) bool {
			return len(ops) > 0 && litIn(ops[0], "list")
		},
		"reflog": func(ops []word, _ []string) bool { return len(ops) == 0 || litIn(ops[0], "show") },
		"config": func(ops []word, opts []string) bool {
			return anyOf(opts, "--get", "--get-all", "--get-regexp", "--list", "-l", "--get-urlmatch", "--show-origin") ||
				(len(ops) > 0 && litIn(ops[0], "get", "list")) || (len(ops) == 1 && !strings.Contains(ops[0].lit, "="))
		},
	}
}}

// gitDangerOpts are subcommand options that run programs or write files, by the full
// name (git accepts unique abbreviations, so a prefix of one counts).
var gitDangerOpts = &lazy.Value[map[string]string]{Build: func() map[string]string {
	return map[string]string{
		"output": "writes a file", "upload-pack": "runs a program", "receive-pack": "runs a program",
		"exec": "runs a program", "open-files-in-pager": "runs a program", "extcmd": "runs a program",
		"config-env": "sets configuration that can run a program", "tool": "runs a program",
		"smtp-server": "runs a program", "to-cmd": "runs a program", "cc-cmd": "runs a program",
		"header-cmd": "runs a program", "sendmail-cmd": "runs a program", "template": "installs hooks",
	}
}}

// gitRiskyOptions are subcommands with options that write files or run programs.
func gitRiskyOptions(s string) bool {
	switch s {
	case "log", "diff", "show", "grep", "rebase", "fetch", "clone", "pull", "ls-remote", "archive",
		"format-patch", "whatchanged", "difftool", "mergetool", "send-email", "init", "push", "range-diff",
		"diff-tree", "diff-files", "diff-index", "shortlog", "submodule", "bisect":
		return true
	}
	return false
}

// gitDangerShort are short options that run programs, per subcommand (also inside a
// cluster such as -nO).
func gitDangerShort(s string) string {
	switch s {
	case "grep":
		return "O"
	case "rebase", "difftool":
		return "x"
	case "clone", "fetch", "pull", "ls-remote":
		return "u"
	case "archive", "mergetool": // listed, with no short option of this kind
		return ""
	}
	return ""
}

func anyOf(list []string, names ...string) bool {
	for _, n := range names {
		for _, l := range list {
			if l == n {
				return true
			}
		}
	}
	return false
}

func litIn(w word, names ...string) bool {
	if !w.static {
		return false
	}
	for _, n := range names {
		if w.lit == n {
			return true
		}
	}
	return false
}

// gitEffects reads git's global options, then the subcommand's words leniently:
// non-option words are possible paths (revisions rarely match a denied path, and
// REV:PATH names PATH).
func gitEffects(args []word) effects {
	ef := effects{}
	var dir *word
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if !a.static {
			ef.setDanger("git options known only at run time")
			return ef
		}
		if !strings.HasPrefix(a.lit, "-") {
			break
		}
		name, val, hasVal := strings.Cut(a.lit, "=")
		takeVal := func() (word, bool) {
			if hasVal {
				return litWord(val), true
			}
			if i+1 < len(args) {
				i++
				return args[i], true
			}
			return word{}, false
		}
		switch name {
		case "-C":
			if v, ok := takeVal(); ok {
				if dir != nil || !v.static {
					d := dynWord()
					dir = &d
				} else {
					dir = &v
				}
			}
		case "-c":
			v, ok := takeVal()
			key, _, _ := strings.Cut(v.lit, "=")
			if !ok || !v.static || !gitSafeConfig(strings.ToLower(key)) {
				ef.setDanger("git -c " + v.lit + " can run a program")
			}
		case "--config-env":
			takeVal()
			ef.setDanger("git --config-env sets configuration that can run a program")
		case "--exec-path":
			if hasVal {
				ef.setDanger("git --exec-path runs programs from another directory")
			}
		case "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--list-cmds", "--attr-source":
			takeVal()
		case "-p", "-P", "--paginate", "--no-pager", "--no-replace-objects", "--bare", "--literal-pathspecs",
			"--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs", "--no-optional-locks", "--html-path",
			"--man-path", "--info-path", "--version", "--help", "--no-lazy-fetch", "--no-advice":
		default:
			ef.setDanger("a git option we do not know (" + name + ")")
		}
	}
	if i >= len(args) {
		ef.readOnly = ef.danger == ""
		return ef
	}
	sub := args[i].lit
	rest := args[i+1:]
	var ops []word
	var opts []string
	afterDashes := false
	for _, w := range rest {
		if !w.static {
			// A word known only at run time may be an option: dangerous where the
			// subcommand has options that write or run (a quoted "$msg" for commit -m
			// is not).
			if w.splittable || gitRiskyOptions(sub) && !afterDashes && classifyOptionWord(w) == unreadable {
				ef.setDanger("git arguments known only at run time")
			}
			ops = append(ops, w)
			continue
		}
		if afterDashes || !strings.HasPrefix(w.lit, "-") || w.lit == "-" {
			ops = append(ops, w)
			continue
		}
		if w.lit == "--" {
			afterDashes = true
			continue
		}
		opts = append(opts, w.lit)
		if strings.HasPrefix(w.lit, "--") {
			name, _, _ := strings.Cut(w.lit[2:], "=")
			for full, why := range gitDangerOpts.Get() {
				if name != "" && strings.HasPrefix(full, name) && len(name) >= 3 {
					ef.setDanger("git " + sub + " --" + full + " " + why)
				}
			}
		}
	}
	if letters := gitDangerShort(sub); letters != "" {
		for _, o := range opts {
			if !strings.HasPrefix(o, "--") && strings.ContainsAny(o[1:], letters) {
				ef.setDanger("git " + sub + " " + o + " runs a program")
			}
		}
	}
	switch sub {
	case "submodule":
		if len(ops) > 0 && litIn(ops[0], "foreach") {
			ef.setDanger("git submodule foreach runs a program")
		}
	case "bisect":
		if len(ops) > 0 && litIn(ops[0], "run") {
			ef.setDanger("git bisect run runs a program")
		}
	case "filter-branch", "difftool", "mergetool":
		ef.setDanger("git " + sub + " runs programs")
	}
	place := func(w word) word {
		if dir == nil {
			return w
		}
		return joinWord(*dir, w)
	}
	if gitWritesTree(sub, ops, opts) {
		// The files come from git's objects, the index or a patch: names we do not see,
		// below the repository's top, wherever that is from here.
		ef.addTree(treeUnseen, dynWord(), word{})
	}
	switch sub {
	case "rm", "mv", "checkout", "restore", "reset", "clean", "apply", "am", "init", "clone":
		for _, w := range ops {
			ef.add(roleReadWrite, place(w))
		}
	case "config":
		if gitListing.Get()["config"](ops, opts) {
			break
		}
		switch {
		case anyOf(opts, "--global"):
			ef.add(roleWrite, litWord("~/.gitconfig"))
			ef.writes[len(ef.writes)-1].tilde = true
		case anyOf(opts, "--system"):
			ef.add(roleWrite, litWord("/etc/gitconfig"))
		default:
			ef.add(roleWrite, place(litWord(".git/config")))
		}
	default:
		for _, w := range ops {
			ef.add(roleRead, place(w))
			if w.static {
				if _, p, ok := strings.Cut(w.lit, ":"); ok && p != "" {
					ef.add(roleRead, place(litWord(strings.TrimPrefix(p, "./"))))
					if dir != nil && !strings.HasPrefix(p, "./") && !strings.HasPrefix(p, "../") {
						// PATH is from the repository's top, which -C DIR may be below.
						ef.add(roleRead, litWord(p))
					}
				}
			}
		}
	}
	if ef.danger == "" && len(ef.writes) == 0 {
		if f, ok := gitListing.Get()[sub]; ok {
			ef.readOnly = f(ops, opts)
		} else {
			ef.readOnly = gitReadOnly(sub)
		}
	}
	return ef
}

// gitWritesTree reports whether a git subcommand writes work-tree files from git's
// objects, the index or a patch (or deletes untracked ones), under names the command
// line does not show: `git reset --hard`, `git checkout .`, `git restore`, `git stash`,
// `git clean -fdx`, `git checkout-index -a`, `git apply`, a merge ...
func gitWritesTree(sub string, ops []word, opts []string) bool {
	switch sub {
	case "checkout", "switch":
		// -b NAME without a start point makes a branch where HEAD is: no file changes.
		return !(anyOf(opts, "-b", "-B", "-c", "-C", "--orphan") && len(ops) <= 1)
	case "clean":
		return !anyOf(opts, "-n", "--dry-run")
	case "restore", "checkout-index", "merge", "pull", "rebase", "cherry-pick",
		"revert", "am", "bisect", "read-tree", "sparse-checkout", "worktree", "clone", "submodule":
		if sub == "worktree" {
			return len(ops) > 0 && litIn(ops[0], "add", "move", "remove", "repair")
		}
		return true
	case "reset":
		return anyOf(opts, "--hard", "--merge", "--keep", "--recurse-submodules")
	case "stash":
		return len(ops) == 0 || !litIn(ops[0], "list", "show", "create", "store")
	case "apply":
		return !anyOf(opts, "--check", "--stat", "--numstat", "--summary", "--cached") || anyOf(opts, "--apply", "--index")
	}
	return false
}

// tarEffects: -f names the archive (read when listing or extracting, written when
// creating); -c reads its operands; -x writes below -C (or the working directory).
// Options that run programs are dangerous forms. GNU tar abbreviates long options.
func tarEffects(args []word) effects {
	s := &cmdSpec{opts: optSpec{noArg: "AcdrtuxzjJZavwkmOpPSWhiBGMlnUoq", withArg: "fCbTXgKLNVIFH"}, abbrev: true}
	// Old style: the first word is a cluster of letters without a dash.
	if len(args) > 0 && args[0].static && args[0].lit != "" && !strings.HasPrefix(args[0].lit, "-") {
		cl := args[0].lit
		var rebuilt []word
		k := 1
		for _, c := range cl {
			rebuilt = append(rebuilt, litWord("-"+string(c)))
			if strings.ContainsRune(s.opts.withArg, c) && k < len(args) {
				rebuilt = append(rebuilt, args[k])
				k++
			}
		}
		args = append(rebuilt, args[k:]...)
	}
	s.opts.longNoArg = append([]string{"create", "extract", "get", "list", "append", "update", "diff", "compare",
		"delete", "catenate", "concatenate", "gzip", "bzip2", "xz", "zstd", "lzma", "lzip", "lzop", "compress",
		"auto-compress", "verbose", "keep-old-files", "overwrite", "to-stdout", "preserve-permissions",
		"same-permissions", "absolute-names", "dereference", "no-recursion", "recursion", "wildcards",
		"no-wildcards", "anchored", "no-anchored", "totals", "touch", "numeric-owner", "sparse", "ignore-zeros",
		"skip-old-files", "strip-trailing-slashes", "show-transformed-names", "one-file-system", "no-same-owner",
		"same-owner", "no-same-permissions", "check-links", "unlink-first", "recursive-unlink", "remove-files",
		"verify", "full-time", "utc", "null", "no-null", "ignore-case", "no-ignore-case", "keep-newer-files",
		"ignore-failed-read", "exclude-vcs", "exclude-vcs-ignores", "exclude-backups", "exclude-caches",
		"show-defaults", "show-omitted-dirs", "interactive", "confirmation", "multi-volume", "seek", "no-seek",
		"posix", "preserve-order", "same-order", "delay-directory-restore", "no-delay-directory-restore",
		"warning", "checkpoint", "help", "usage", "version", "no-auto-compress", "xattrs", "no-xattrs", "acls",
		"no-acls", "selinux", "no-selinux", "keep-directory-symlink", "no-overwrite-dir", "overwrite-dir"},
		s.opts.longNoArg...)
	s.opts.longWithArg = []string{"file", "directory", "blocking-factor", "files-from", "exclude-from",
		"listed-incremental", "starting-file", "tape-length", "newer", "after-date", "newer-mtime", "label",
		"use-compress-program", "info-script", "new-volume-script", "format", "exclude", "transform", "xform",
		"strip-components", "owner", "group", "mode", "mtime", "to-command", "checkpoint-action", "rsh-command",
		"rmt-command", "index-file", "volno-file", "record-size", "sort", "occurrence", "quoting-style",
		"quote-chars", "no-quote-chars", "level", "pax-option", "suffix", "backup", "owner-map", "group-map",
		"hole-detection", "clamp-mtime", "exclude-tag", "exclude-tag-under", "exclude-tag-all", "xattrs-include",
		"xattrs-exclude", "atime-preserve"}
	s.danger = tarDanger.Get()
	p := parseArgs(args, s)
	ef := effects{}
	for _, o := range p.opts {
		if why, ok := tarDanger.Get()[o.name]; ok {
			ef.setDanger(why)
		}
	}
	if p.unknownOpt != "" {
		ef.setDanger("a tar option we do not know (" + p.unknownOpt + ")")
	}
	if p.dynamic {
		ef.setDanger("tar options known only at run time")
	}
	modes := 0
	for _, m := range [][]string{{"c", "create"}, {"x", "extract", "get"}, {"t", "list"}, {"r", "append"},
		{"u", "update"}, {"A", "catenate", "concatenate"}, {"d", "diff", "compare"}, {"delete"}} {
		if p.has(m...) {
			modes++
		}
	}
	if modes > 1 {
		ef.setDanger("tar with more than one mode")
	}
	archive, hasArchive := p.arg("f", "file")
	if hasArchive && archive.static && strings.Contains(strings.SplitN(archive.lit, "/", 2)[0], ":") &&
		!p.has("force-local") {
		ef.setDanger("tar -f HOST:FILE runs a remote shell")
	}
	dir, hasDir := p.arg("C", "directory")
	creating := p.has("c", "create", "r", "append", "u", "update", "A", "catenate", "concatenate")
	switch {
	case creating:
		ef.recursive = !p.has("no-recursion")
		if hasArchive {
			ef.add(roleWrite, archive)
		}
		for _, w := range p.operands {
			if hasDir {
				w = joinWord(dir, w)
			}
			ef.add(roleRead, w)
		}
	case p.has("x", "extract", "get") && !p.has("O", "to-stdout"):
		if hasArchive {
			ef.add(roleRead, archive)
		}
		dest := litWord(".")
		if hasDir {
			dest = dir
		}
		ef.add(roleWrite, dest)
		// The members' names are the archive's: anything below dest, and anywhere at
		// all with -P (absolute names and `..` kept).
		ef.addTree(treeUnseen, dest, word{})
		if p.has("P", "absolute-names") {
			ef.add(roleWrite, dynWord())
		}
		// Members named on the line are written where they are extracted.
		for _, w := range p.operands {
			if hasDir {
				w = joinWord(dir, w)
			}
			ef.add(roleWrite, w)
		}
	default: // listing, comparing, deleting members of the archive
		if hasArchive {
			if p.has("delete") {
				ef.add(roleWrite, archive)
			} else {
				ef.add(roleRead, archive)
			}
		}
	}
	for _, o := range p.opts {
		switch o.name {
		case "T", "files-from", "X", "exclude-from":
			ef.add(roleRead, o.arg)
		case "g", "listed-incremental", "index-file", "volno-file":
			ef.add(roleWrite, o.arg)
		}
	}
	ef.readOnly = ef.danger == "" && len(ef.writes) == 0
	return ef
}

var rgSpec = &lazy.Value[*cmdSpec]{Build: func() *cmdSpec {
	return &cmdSpec{
		opts: optSpec{noArg: "abcFHhiILlnNopqSsuUvwxz0.", withArg: "ABCdEefgjMmrTt",
			longNoArg: []string{"text", "binary", "block-buffered", "byte-offset", "case-sensitive", "column", "count",
				"count-matches", "crlf", "debug", "trace", "files", "files-with-matches", "files-without-match",
				"fixed-strings", "follow", "glob-case-insensitive", "heading", "no-heading", "hidden", "no-hidden",
				"ignore-case", "ignore-file-case-insensitive", "include-zero", "invert-match", "json", "line-buffered",
				"line-number", "no-line-number", "line-regexp", "max-columns-preview", "mmap", "no-mmap", "multiline",
				"multiline-dotall", "no-config", "no-ignore", "no-ignore-dot", "no-ignore-exclude", "no-ignore-files",
				"no-ignore-global", "no-ignore-parent", "no-ignore-vcs", "no-messages", "no-require-git", "no-unicode",
				"null", "null-data", "one-file-system", "only-matching", "passthru", "pcre2", "pcre2-version", "pretty",
				"quiet", "search-zip", "smart-case", "sort-files", "stats", "stop-on-nonmatch", "trim", "type-list",
				"unrestricted", "vimgrep", "with-filename", "no-filename", "word-regexp", "auto-hybrid-regex",
				"no-pcre2-unicode", "help", "version", "no-column", "no-byte-offset", "no-block-buffered",
				"no-context-separator", "no-crlf", "no-encoding", "no-fixed-strings", "no-follow", "no-glob-case-insensitive",
				"no-ignore-messages", "no-include-zero", "no-invert-match", "no-json", "no-line-buffered",
				"no-max-columns-preview", "no-multiline", "no-multiline-dotall", "no-one-file-system", "no-only-matching",
				"no-passthru", "no-pcre2", "no-search-zip", "no-sort-files", "no-stats", "no-text", "no-trim",
				"no-unrestricted", "no-binary", "no-pre", "no-ignore-case", "no-word-regexp", "no-line-regexp",
				"generate"},
			longWithArg: []string{"after-context", "before-context", "context", "color", "colors", "context-separator",
				"dfa-size-limit", "encoding", "engine", "field-context-separator", "field-match-separator", "file",
				"glob", "iglob", "ignore-file", "max-columns", "max-count", "max-depth", "maxdepth", "max-filesize",
				"path-separator", "pre", "pre-glob", "regex-size-limit", "regexp", "replace", "sort", "sortr", "threads",
				"type", "type-add", "type-clear", "type-not", "hostname-bin", "hyperlink-format"}},
		operands: roleRead, skip: 1, skipUnless: []string{"e", "f", "regexp", "file", "files", "type-list"},
		optRoles:    map[string]role{"f": roleRead, "file": roleRead, "ignore-file": roleRead},
		implicitDot: true, // rg searches the working directory when no path is given
		post: func(p *parsed, ef *effects) {
			ef.recursive = true
			// -uu and -uuu mean --hidden too; the repetition is not counted, so any -u counts.
			ef.skipsHidden = !p.has("hidden", ".", "u", "unrestricted")
			ef.followsLinks = p.has("L", "follow")
		},
		danger: map[string]string{"pre": "rg --pre runs a program on every file", "pre-glob": "rg --pre-glob runs a program",
			"hostname-bin": "rg --hostname-bin runs a program"},
	}
}}

var jqSpec = &lazy.Value[*cmdSpec]{Build: func() *cmdSpec {
	return &cmdSpec{
		opts: optSpec{noArg: "cnrjaSCMseh0", withArg: "fL",
			longNoArg: []string{"compact-output", "null-input", "raw-input", "raw-output", "raw-output0", "join-output",
				"ascii-output", "sort-keys", "color-output", "monochrome-output", "slurp", "exit-status", "tab", "seq",
				"stream", "stream-errors", "unbuffered", "help", "version", "args", "jsonargs", "build-configuration"},
			longWithArg: []string{"from-file", "indent"}},
		operands: roleRead, skip: 1, skipUnless: []string{"f", "from-file"},
		optRoles: map[string]role{"f": roleRead, "from-file": roleRead},
		post: func(p *parsed, ef *effects) {
			if p.unknownOpt != "" {
				ef.reads = nil
				ef.unknownReads()
			}
		},
	}
}}

// jqEffects takes out jq's options with two arguments (--arg NAME VALUE and kin;
// --slurpfile and --rawfile read their file) before reading the rest.
func jqEffects(args []word) effects {
	var rest, files []word
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.static && a.lit == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		if a.static && (a.lit == "--arg" || a.lit == "--argjson" || a.lit == "--slurpfile" || a.lit == "--rawfile") {
			if i+2 < len(args) && (a.lit == "--slurpfile" || a.lit == "--rawfile") {
				files = append(files, args[i+2])
			}
			i += 2
			continue
		}
		rest = append(rest, a)
	}
	ef := jqSpec.Get().effects(rest)
	for _, f := range files {
		ef.add(roleRead, f)
	}
	return ef
}

// unknownReads marks that the command reads files we cannot name.
func (ef *effects) unknownReads() { ef.add(roleRead, dynWord()) }

package permission

import (
	"path"
	"strings"
)

// effects is what one simple command does to files, as far as the command table
// knows it: the paths it reads and writes, and whether it is a dangerous form of
// itself (a form a prefix allow rule for it does not approve).
type effects struct {
	reads, writes []word
	// danger names a form that runs programs or writes files although the command
	// usually only reads (find -delete, sed -i, sort -o, awk's system() ...). A rule
	// with a wildcard does not approve it; an exact rule or the mode decides.
	danger string
	// readOnly: a known command that neither writes, deletes nor runs anything of its
	// own (what it runs as a runner is a sub-command of its own). Plan mode allows
	// only these.
	readOnly bool
	// unknown: the command is not in the table; any argument may name a path.
	unknown bool
	// recursive: the directories it reads, it reads with everything below them.
	recursive bool
	// skipsHidden: its recursive reads leave out hidden entries (rg without --hidden).
	skipsHidden bool
	// followsLinks: its recursive reads follow symlinks met below the directory.
	followsLinks bool
	// includes: its recursive reads open only files whose base name matches one of
	// these globs (grep --include); nil means every file.
	includes []string
	// trees are directories it writes below under names its words do not show (an
	// archive's members, git's history, a copied or deleted directory's entries).
	// Without the sandbox they are checked entry by entry, or asked about (tree).
	trees []tree
}

// treeKind says where the names a tree write creates come from.
type treeKind uint8

const (
	// treeUnseen: from something we do not read (an archive, git's objects, a patch):
	// any name may be written below dest.
	treeUnseen treeKind = iota
	// treeCopy: the entries below src, placed below dest (and below dest/base(src), as
	// cp and rsync do when dest is a directory).
	treeCopy
	// treeInPlace: the entries below dest itself (a recursive delete, chmod -R).
	treeInPlace
)

// tree is one directory written below (effects.trees).
type tree struct {
	dest, src word
	kind      treeKind
}

func (ef *effects) addTree(kind treeKind, dest, src word) {
	ef.trees = append(ef.trees, tree{dest: dest, src: src, kind: kind})
}

// includeGlobs returns the static globs of the options named, and false when one is
// known only at run time (then every file may be read).
func (p *parsed) includeGlobs(names ...string) ([]string, bool) {
	var globs []string
	for _, o := range p.opts {
		for _, n := range names {
			if o.name != n || !o.hasArg {
				continue
			}
			if !o.arg.static {
				return nil, false
			}
			globs = append(globs, o.arg.lit)
		}
	}
	return globs, true
}

// role says what an operand or option argument is to the command.
type role uint8

const (
	roleNone role = iota
	roleRead
	roleWrite
	roleReadWrite // read and then removed or replaced (mv's source, gzip's operand)
)

// cmdSpec describes a command declaratively: its options (so operands are found),
// what its operands are, which option arguments are paths, and which options are
// dangerous forms.
type cmdSpec struct {
	opts optSpec
	// inOrder: options end at the first operand (POSIX); otherwise GNU permutation.
	inOrder bool
	// abbrev: long options may be abbreviated to a unique prefix (getopt_long, argp).
	abbrev bool
	// digits: `-5` is an option (head, tail, uniq's obsolete forms).
	digits   bool
	operands role
	// skip counts leading operands that are not paths (grep's pattern, chmod's mode),
	// unless one of skipUnless supplies them.
	skip       int
	skipUnless []string
	optRoles   map[string]role
	danger     map[string]string
	// dangerArg: an option that is dangerous only when it has an argument.
	writer bool // the command exists to write: never read-only
	// implicitDot: with no path operand the command reads the working directory.
	implicitDot bool
	// post refines the effects with command-specific knowledge.
	post func(p *parsed, ef *effects)
}

// parsed is a command line read against a cmdSpec.
type parsed struct {
	opts     []opt
	operands []word
	// unknownOpt is the first option the spec does not know; dynamic is set when a
	// word that may be an option is only known at run time.
	unknownOpt string
	dynamic    bool
}

func (p *parsed) has(names ...string) bool { return hasOpt(p.opts, names...) }

func (p *parsed) arg(names ...string) (word, bool) {
	for _, o := range p.opts {
		for _, n := range names {
			if o.name == n && o.hasArg {
				return o.arg, true
			}
		}
	}
	return word{}, false
}

// parseArgs reads options and operands leniently: an unknown option is recorded and
// skipped (as taking no argument), a word known only at run time becomes an operand
// and is recorded too, so the caller decides how much to trust the result.
func parseArgs(args []word, s *cmdSpec) parsed {
	var p parsed
	for i := 0; i < len(args); i++ {
		w := args[i]
		switch classifyOptionWord(w) {
		case unreadable:
			p.dynamic = true
			p.operands = append(p.operands, w)
			continue
		case operandWord:
			p.operands = append(p.operands, w)
			if s.inOrder {
				p.operands = append(p.operands, args[i+1:]...)
				return p
			}
			continue
		case endOfOptions:
			p.operands = append(p.operands, args[i+1:]...)
			return p
		}
		a := w.lit
		if s.digits && len(a) > 1 && a[1] >= '0' && a[1] <= '9' {
			p.opts = append(p.opts, opt{name: "#", arg: litWord(a[1:]), hasArg: true})
			continue
		}
		if strings.HasPrefix(a, "--") {
			name, val, hasVal := strings.Cut(a[2:], "=")
			full, kind := s.longName(name)
			o := opt{name: full}
			switch kind {
			case 0:
				if p.unknownOpt == "" {
					p.unknownOpt = "--" + name
				}
				continue
			case 1:
				if hasVal {
					p.unknownOpt = "--" + name + "="
				}
			case 2:
				o.hasArg = true
				if hasVal {
					o.arg = litWord(val)
				} else if i+1 < len(args) {
					i++
					o.arg = args[i]
				} else {
					o.hasArg = false
				}
			case 3:
				o.hasArg = hasVal
				o.arg = litWord(val)
			}
			p.opts = append(p.opts, o)
			continue
		}
		for j := 1; j < len(a); j++ {
			c := string(a[j])
			switch {
			case strings.Contains(s.opts.noArg, c):
				p.opts = append(p.opts, opt{name: c})
				continue
			case strings.Contains(s.opts.withArg, c):
				o := opt{name: c, hasArg: true}
				if j+1 < len(a) {
					o.arg = litWord(a[j+1:])
				} else if i+1 < len(args) {
					i++
					o.arg = args[i]
				} else {
					o.hasArg = false
				}
				p.opts = append(p.opts, o)
			case strings.Contains(s.opts.optArg, c):
				o := opt{name: c, hasArg: j+1 < len(a)}
				if o.hasArg {
					o.arg = litWord(a[j+1:])
				}
				p.opts = append(p.opts, o)
			default:
				if p.unknownOpt == "" {
					p.unknownOpt = "-" + c
				}
			}
			break
		}
	}
	return p
}

// longName resolves a long option, by a unique prefix where the command allows it.
// kind: 0 unknown (or ambiguous), 1 no argument, 2 argument, 3 optional argument.
func (s *cmdSpec) longName(name string) (string, int) {
	lists := [][]string{s.opts.longNoArg, s.opts.longWithArg, s.opts.longOptArg}
	for k, l := range lists {
		for _, n := range l {
			if n == name {
				return n, k + 1
			}
		}
	}
	if !s.abbrev || name == "" {
		return name, 0
	}
	found, kind := "", 0
	for k, l := range lists {
		for _, n := range l {
			if strings.HasPrefix(n, name) {
				if found != "" && found != n {
					return name, 0 // ambiguous: the program refuses it
				}
				found, kind = n, k+1
			}
		}
	}
	return found, kind
}

// effectsOf looks a simple command (wrappers stripped) up in the table.
func effectsOf(ws []word) effects {
	if len(ws) == 0 || !ws[0].static {
		return effects{unknown: true}
	}
	name := path.Base(ws[0].lit)
	if strings.Contains(ws[0].lit, "/") && !systemBin(path.Dir(path.Clean(ws[0].lit))) {
		return effects{unknown: true} // ./cat is a script of the project, not cat
	}
	args := ws[1:]
	if f, ok := customCommands.Get()[name]; ok {
		return f(args)
	}
	s, ok := commandTable.Get()[name]
	if !ok && inertCommands(name) {
		return effects{readOnly: true}
	}
	if !ok {
		if runnerCommands(name) {
			return effects{readOnly: readOnlyRunners(name)}
		}
		return effects{unknown: true}
	}
	return s.effects(args)
}

func (s *cmdSpec) effects(args []word) effects {
	p := parseArgs(args, s)
	ef := effects{readOnly: !s.writer}
	ops := p.operands
	if !p.has(s.skipUnless...) || len(s.skipUnless) == 0 {
		for k := 0; k < s.skip && len(ops) > 0; k++ {
			ops = ops[1:]
		}
	}
	for _, o := range p.opts {
		if r := s.optRoles[o.name]; r != roleNone && o.hasArg {
			ef.add(r, o.arg)
		}
		if why, ok := s.danger[o.name]; ok {
			ef.setDanger(why)
		}
	}
	for _, w := range ops {
		ef.add(s.operands, w)
	}
	if len(ops) == 0 && s.implicitDot {
		ef.add(s.operands, litWord("."))
	}
	if len(s.danger) > 0 {
		switch {
		case p.unknownOpt != "":
			ef.setDanger("an option we do not know (" + p.unknownOpt + ")")
		case p.dynamic:
			ef.setDanger("options known only at run time")
		}
	}
	if s.post != nil {
		s.post(&p, &ef)
	}
	if p.dynamic && (s.writer || len(ef.writes) > 0) {
		// A word known only at run time may be options (`cp $O a b` with O='-t DIR'):
		// the command may write somewhere we cannot name.
		ef.add(roleWrite, dynWord())
	}
	if ef.danger != "" || len(ef.writes) > 0 {
		ef.readOnly = false
	}
	return ef
}

func (ef *effects) add(r role, w word) {
	if w.static && (w.lit == "-" || w.lit == "") {
		return // standard input or output
	}
	switch r {
	case roleRead:
		ef.reads = append(ef.reads, w)
	case roleWrite:
		ef.writes = append(ef.writes, w)
	case roleReadWrite:
		ef.reads = append(ef.reads, w)
		ef.writes = append(ef.writes, w)
	}
}

func (ef *effects) setDanger(why string) {
	if ef.danger == "" {
		ef.danger = why
	}
}

// systemBin are the directories whose programs are the commands the table knows.
func systemBin(s string) bool {
	switch s {
	case "/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin", "/opt/homebrew/bin":
		return true
	}
	return false
}

// safeEnv are variables a runner may set without changing what the command runs.
func safeEnv(s string) bool {
	switch s {
	case "LANG", "LANGUAGE", "TZ", "TERM", "COLUMNS", "LINES", "NO_COLOR", "FORCE_COLOR", "CLICOLOR", "CI",
		"NODE_ENV", "RUST_BACKTRACE", "RUST_LOG", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "GOOS", "GOARCH",
		"CGO_ENABLED", "GOMAXPROCS", "TMPDIR":
		return true
	}
	return false
}

// unsafeEnv returns the first NAME=value word whose name is not in safeEnv or LC_*.
func unsafeEnv(assigns []word) string {
	for _, a := range assigns {
		name, _, _ := strings.Cut(a.lit, "=")
		if !safeEnv(name) && !strings.HasPrefix(name, "LC_") {
			return name
		}
	}
	return ""
}

// runnerCommands run the command in their arguments, which is followed as a
// sub-command of its own (runners.go); they have no file operands of their own here.
func runnerCommands(s string) bool {
	switch s {
	case "env", "sudo", "doas", "exec", "setsid", "xargs", "su", "script", "busybox", "toybox", "ionice", "chrt",
		"taskset", "flock", "unshare", "setpriv", "chroot", "eval", "nohup", "nice", "timeout", "stdbuf", "time",
		"builtin", "command":
		return true
	}
	return false
}

// readOnlyRunners add nothing of their own to what they run.
func readOnlyRunners(s string) bool {
	switch s {
	case "env", "exec", "setsid", "xargs", "busybox", "toybox", "ionice", "chrt", "taskset", "eval", "nohup",
		"nice", "timeout", "stdbuf", "time", "builtin", "command":
		return true
	}
	return false
}

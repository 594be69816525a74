package permission

import (
	"slices"
	"strings"

	"github.com/robota-sdk/robota-go/internal/lazy"
)

// runnerResult is what a runner (a command that runs another command given in its
// arguments) runs. Unlike a wrapper a runner is not stripped: the outer command must
// itself be allowed, and the inner command is checked as a sub-command of its own.
type runnerResult struct {
	inner   [][]word // commands given as words
	scripts []word   // commands given as shell source (sh -c, eval, trap ...)
	unknown bool     // there is an inner command we cannot see
	chdir   bool
	// positional: the scripts get positional parameters from the line (sh -c 'S' a b).
	positional bool
	// assigns are the NAME=value words a runner puts in the command's environment.
	assigns []word
}

// opaqueRunners run a command we do not parse their options for, or run it
// through a shell of their own (watch, parallel): their inner command is unknown.
func opaqueRunners(s string) bool {
	switch s {
	case "runuser", "nsenter", "systemd-run", "watch", "parallel", "pkexec", "firejail", "bwrap", "strace",
		"ltrace":
		return true
	}
	return false
}

func shells(s string) bool {
	switch s {
	case "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish":
		return true
	}
	return false
}

func innerCommands(ws []word) runnerResult {
	if len(ws) == 0 || !ws[0].static {
		return runnerResult{}
	}
	name := ws[0].lit
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	args := ws[1:]
	switch {
	case name == "env":
		i, opts, ok := skipOptions(args, optSpec{noArg: "i0v", withArg: "uCS",
			longNoArg:   []string{"ignore-environment", "null", "debug"},
			longWithArg: []string{"unset", "chdir", "split-string", "block-signal", "default-signal", "ignore-signal"}})
		var r runnerResult
		for _, o := range opts {
			switch o.name {
			case "S", "split-string":
				return runnerResult{unknown: true}
			case "C", "chdir":
				r.chdir = true
			}
		}
		if !ok {
			return runnerResult{unknown: true}
		}
		for i < len(args) && isAssignmentWord(args[i]) {
			r.assigns = append(r.assigns, args[i])
			i++
		}
		return withInner(r, args[i:])
	case name == "sudo" || name == "doas":
		spec := optSpec{noArg: "AbEHiKklnPSsVv", withArg: "CDghpRrTtUu",
			longNoArg: []string{"askpass", "background", "preserve-env", "set-home", "login", "reset-timestamp",
				"remove-timestamp", "list", "non-interactive", "preserve-groups", "stdin", "shell", "validate"},
			longWithArg: []string{"close-from", "chdir", "group", "host", "prompt", "chroot", "role", "type",
				"command-timeout", "other-user", "user"}}
		if name == "doas" {
			spec = optSpec{noArg: "nSs", withArg: "Cu"}
		}
		i, opts, ok := skipOptions(args, spec)
		if !ok {
			return runnerResult{unknown: true}
		}
		r := runnerResult{chdir: true}
		for i < len(args) && isAssignmentWord(args[i]) {
			r.assigns = append(r.assigns, args[i])
			i++
		}
		if i == len(args) && hasOpt(opts, "s", "i", "shell", "login") {
			return runnerResult{unknown: true} // a shell reading its commands from stdin
		}
		return withInner(r, args[i:])
	case name == "exec" || name == "setsid":
		i, _, ok := skipOptions(args, optSpec{noArg: "clfw", withArg: "a", longNoArg: []string{"fork", "wait", "ctty"}})
		if !ok {
			return runnerResult{unknown: true}
		}
		return withInner(runnerResult{}, args[i:])
	case shells(name):
		return shellScript(args)
	case name == "eval":
		if len(args) == 0 {
			return runnerResult{}
		}
		var parts []string
		for _, a := range args {
			if !a.static {
				return runnerResult{unknown: true}
			}
			parts = append(parts, a.lit)
		}
		return runnerResult{scripts: []word{litWord(strings.Join(parts, " "))}}
	case name == "xargs":
		if len(args) == 0 {
			return runnerResult{} // echo of what it reads
		}
		return xargsInner(args)
	case name == "find":
		return findInner(args)
	case name == "su":
		return suInner(args)
	case name == "script":
		return scriptInner(args)
	case name == "busybox" || name == "toybox":
		// A multi-call binary: the first operand is the program it runs (busybox sh -c …).
		if len(args) > 0 && strings.HasPrefix(args[0].lit, "-") {
			return runnerResult{unknown: true}
		}
		return withInner(runnerResult{}, args)
	case opaqueRunners(name):
		return runnerResult{unknown: true}
	case name == "fc":
		// fc re-runs commands from the history (fc -s, fc -e ed); only listing is inert.
		for _, a := range args {
			if a.static && (a.lit == "-l" || a.lit == "-ln" || a.lit == "-nl") {
				return runnerResult{}
			}
		}
		return runnerResult{unknown: true}
	}
	if spec, ok := runnerSpecs.Get()[name]; ok {
		return spec.follow(args)
	}
	return runnerResult{}
}

func hasOpt(opts []opt, names ...string) bool {
	for _, o := range opts {
		if slices.Contains(names, o.name) {
			return true
		}
	}
	return false
}

func withInner(r runnerResult, rest []word) runnerResult {
	if len(rest) > 0 {
		r.inner = append(r.inner, rest)
	}
	return r
}

// isAssignmentWord reports NAME=value as env and sudo read it.
func isAssignmentWord(w word) bool {
	if !w.static {
		return false
	}
	name, _, ok := strings.Cut(w.lit, "=")
	return ok && name != "" && !strings.ContainsAny(name, "/ ")
}

// runnerSpec describes a program that runs the command in its operands after
// options of its own (util-linux and coreutils style, options first).
type runnerSpec struct {
	opts optSpec
	// lead counts the operands before the command: taskset's mask, flock's file,
	// chroot's directory, chrt's priority.
	lead int
	// leadIfNumber: the lead operand is there only when it is a number (chrt's
	// priority may be left out for policies without one).
	leadIfNumber bool
	// noCommand lists options after which the operands are not a command (ionice -p PID).
	noCommand []string
	// leadScript: after the lead, `-c SCRIPT` (or --command) is a script run by $SHELL.
	leadScript bool
	chdir      []string // options that change the directory the command runs in
	alwaysDir  bool     // the command runs in another directory (chroot)
	// bareShell: with no command it starts an interactive shell, reading stdin.
	bareShell bool
}

var runnerSpecs = &lazy.Value[map[string]runnerSpec]{Build: func() map[string]runnerSpec {
	return map[string]runnerSpec{
		"ionice": {opts: optSpec{noArg: "thV", withArg: "cnpPu", longNoArg: []string{"ignore", "help", "version"},
			longWithArg: []string{"class", "classdata", "pid", "pgid", "uid"}},
			noCommand: []string{"p", "P", "u", "pid", "pgid", "uid", "h", "V", "help", "version"}},
		"chrt": {opts: optSpec{noArg: "abdefiphmorRvV", withArg: "DPT",
			longNoArg: []string{"all-tasks", "batch", "deadline", "ext", "fifo", "idle", "pid", "help", "max", "other",
				"rr", "reset-on-fork", "verbose", "version"},
			longWithArg: []string{"sched-runtime", "sched-period", "sched-deadline"}},
			lead: 1, leadIfNumber: true, noCommand: []string{"p", "pid", "m", "max", "h", "V", "help", "version"}},
		"taskset": {opts: optSpec{noArg: "apchV", longNoArg: []string{"all-tasks", "pid", "cpu-list", "help", "version"}},
			lead: 1, noCommand: []string{"p", "pid", "h", "V", "help", "version"}},
		"flock": {opts: optSpec{noArg: "sexnoFuhV", withArg: "wE",
			longNoArg: []string{"shared", "exclusive", "unlock", "nonblocking", "nonblock", "nb", "close", "no-fork",
				"verbose", "help", "version"},
			longWithArg: []string{"timeout", "wait", "conflict-exit-code"}},
			lead: 1, leadScript: true, noCommand: []string{"h", "V", "help", "version"}},
		// unshare's -l/--load-interp registers a binfmt interpreter: left out, so it is unknown.
		"unshare": {opts: optSpec{noArg: "fhVmuinpCTUrc",
			withArg: "RwSG",
			longNoArg: []string{"help", "version", "fork", "forward-signals", "map-root-user", "map-current-user",
				"map-auto", "map-subids", "keep-caps", "clear-env"},
			longWithArg: []string{"map-user", "map-users", "map-group", "map-groups", "owner", "propagation", "setgroups",
				"setuid", "setgid", "root", "wd", "monotonic", "boottime", "whitelist-env"},
			longOptArg: []string{"mount", "uts", "ipc", "net", "pid", "user", "cgroup", "time", "kill-child", "mount-proc",
				"mount-binfmt"}},
			chdir: []string{"R", "root", "w", "wd"}, bareShell: true, noCommand: []string{"h", "V", "help", "version"}},
		"setpriv": {opts: optSpec{noArg: "dhV",
			longNoArg: []string{"dump", "nnp", "no-new-privs", "list-caps", "clear-groups", "keep-groups", "init-groups",
				"reset-env", "help", "version"},
			longWithArg: []string{"inh-caps", "ambient-caps", "bounding-set", "ruid", "euid", "rgid", "egid", "reuid",
				"regid", "groups", "securebits", "pdeathsig", "selinux-label", "apparmor-profile", "landlock-access",
				"landlock-rule", "seccomp-filter", "ptracer"}},
			noCommand: []string{"d", "dump", "list-caps", "h", "V", "help", "version"}},
		"chroot": {opts: optSpec{longNoArg: []string{"skip-chdir", "help", "version"}, longWithArg: []string{"userspec", "groups"}},
			lead: 1, alwaysDir: true, bareShell: true, noCommand: []string{"help", "version"}},
	}
}}

func (s runnerSpec) follow(args []word) runnerResult {
	i, opts, ok := skipOptions(args, s.opts)
	if !ok {
		return runnerResult{unknown: true}
	}
	r := runnerResult{chdir: s.alwaysDir || hasOpt(opts, s.chdir...)}
	if hasOpt(opts, s.noCommand...) {
		return r
	}
	lead := s.lead
	if s.leadIfNumber && !(i < len(args) && args[i].static && isDigits(args[i].lit)) {
		lead = 0
	}
	for ; lead > 0; lead-- {
		if i >= len(args) {
			return r // only the lead operands: nothing is run
		}
		if args[i].splittable {
			return runnerResult{unknown: true}
		}
		i++
	}
	rest := args[i:]
	if s.leadScript && len(rest) > 0 && (!rest[0].static || rest[0].lit == "-c" || rest[0].lit == "--command") {
		if !rest[0].static || len(rest) != 2 {
			return runnerResult{unknown: true}
		}
		sr := scriptWord(rest[1])
		sr.chdir = r.chdir
		return sr
	}
	if len(rest) == 0 {
		if s.bareShell {
			return runnerResult{unknown: true} // an interactive shell reading stdin
		}
		return r
	}
	if rest[0].splittable && !rest[0].static {
		return runnerResult{unknown: true}
	}
	return withInner(r, rest)
}

// GNU xargs: -i, -l and -e take an optional attached argument (-i is -I{}).
var xargsSpec = optSpec{noArg: "0prtx", withArg: "adEILnPs", optArg: "ile",
	longNoArg:   []string{"null", "no-run-if-empty", "verbose", "interactive", "exit", "open-tty", "show-limits", "help", "version"},
	longWithArg: []string{"arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var"},
	longOptArg:  []string{"replace", "max-lines", "eof"}}

func xargsInner(args []word) runnerResult {
	i, opts, ok := skipOptions(args, xargsSpec)
	if !ok {
		return runnerResult{unknown: true}
	}
	rest := args[i:]
	if len(rest) == 0 {
		rest = []word{litWord("echo")}
	}
	for _, o := range opts {
		replace := "{}"
		switch {
		case o.name == "I" || (o.name == "i" || o.name == "replace") && o.hasArg:
			if !o.arg.static {
				return runnerResult{unknown: true}
			}
			replace = o.arg.lit
		case o.name == "i" || o.name == "replace":
		default:
			continue
		}
		// Every word may have the input spliced in, the program's name too.
		name := rest[0]
		if !name.static || replace == "" || strings.Contains(name.lit, replace) {
			name = dynWord()
		}
		return runnerResult{inner: [][]word{{name, dynWord()}}}
	}
	return runnerResult{inner: [][]word{append(append([]word(nil), rest...), dynWord())}}
}

func findInner(args []word) runnerResult {
	var r runnerResult
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.static {
			continue
		}
		switch a.lit {
		case "-exec", "-execdir", "-ok", "-okdir":
		default:
			continue
		}
		var cmd []word
		for i++; i < len(args); i++ {
			if args[i].static && (args[i].lit == ";" || args[i].lit == "+") {
				break
			}
			if args[i].static && args[i].lit == "{}" {
				cmd = append(cmd, dynWord())
				continue
			}
			cmd = append(cmd, args[i])
		}
		if len(cmd) == 0 {
			r.unknown = true
			continue
		}
		r.inner = append(r.inner, cmd)
	}
	return r
}

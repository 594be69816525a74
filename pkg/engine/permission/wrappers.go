package permission

import (
	"regexp"
	"slices"
	"strings"
)

// optSpec describes a command's options well enough to find where its operands start.
type optSpec struct {
	noArg       string // short flags without an argument
	withArg     string // short flags that take an argument
	longNoArg   []string
	longWithArg []string
}

// opt is one option met while skipping options, with its argument if it takes one.
type opt struct {
	name string // short letter or long name
	arg  word
}

// skipOptions consumes leading options. It fails (ok=false) on an unknown option or on
// a word it cannot read, because it can no longer tell where the operands begin.
func skipOptions(ws []word, spec optSpec) (i int, opts []opt, ok bool) {
	for i < len(ws) {
		w := ws[i]
		if !w.static {
			if w.splittable || len(w.toks) == 0 || w.toks[0].kind != tokLit || w.toks[0].r == '-' {
				return i, opts, false
			}
			return i, opts, true // a quoted operand such as "$CMD"
		}
		a := w.lit
		switch {
		case a == "--":
			return i + 1, opts, true
		case a == "-" || !strings.HasPrefix(a, "-"):
			return i, opts, true
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a[2:], "=")
			switch {
			case slices.Contains(spec.longNoArg, name) && !hasVal:
				opts = append(opts, opt{name: name})
			case slices.Contains(spec.longWithArg, name) && hasVal:
				opts = append(opts, opt{name: name, arg: litWord(val)})
			case slices.Contains(spec.longWithArg, name) && i+1 < len(ws):
				i++
				opts = append(opts, opt{name: name, arg: ws[i]})
			default:
				return i, opts, false
			}
		default:
			for j := 1; j < len(a); j++ {
				c := string(a[j])
				switch {
				case strings.Contains(spec.noArg, c):
					opts = append(opts, opt{name: c})
				case strings.Contains(spec.withArg, c):
					if j+1 < len(a) {
						opts = append(opts, opt{name: c, arg: litWord(a[j+1:])})
					} else if i+1 < len(ws) {
						i++
						opts = append(opts, opt{name: c, arg: ws[i]})
					} else {
						return i, opts, false
					}
					j = len(a)
				default:
					return i, opts, false
				}
			}
		}
		i++
	}
	return i, opts, true
}

// stripStatus says what stripWrapper found.
type stripStatus int

const (
	notWrapper   stripStatus = iota
	stripped                 // rest holds the wrapped command
	unanalysable             // a wrapper whose arguments we cannot follow
)

var niceNumber = regexp.MustCompile(`^-[0-9]+$`)

// stripWrapper removes one Claude Code wrapper (timeout, time, nice, nohup, stdbuf,
// command, builtin, bare xargs) and its options from the front of a command. writes
// collects files the wrapper itself writes (time -o).
func stripWrapper(ws []word) (rest []word, writes []word, st stripStatus) {
	if len(ws) < 2 || !ws[0].static {
		return nil, nil, notWrapper
	}
	args := ws[1:]
	var spec optSpec
	switch ws[0].lit {
	case "timeout":
		spec = optSpec{noArg: "v", withArg: "ks", longNoArg: []string{"preserve-status", "foreground", "verbose"},
			longWithArg: []string{"kill-after", "signal"}}
	case "time":
		spec = optSpec{noArg: "pvaq", withArg: "fo", longNoArg: []string{"portability", "verbose", "append", "quiet"},
			longWithArg: []string{"format", "output"}}
	case "nice":
		if args[0].static && niceNumber.MatchString(args[0].lit) {
			args = args[1:]
		}
		spec = optSpec{withArg: "n", longWithArg: []string{"adjustment"}}
	case "nohup", "builtin":
	case "stdbuf":
		spec = optSpec{withArg: "ioe", longWithArg: []string{"input", "output", "error"}}
	case "command":
		spec = optSpec{noArg: "pvV"}
	case "xargs":
		// Only bare xargs is a wrapper; it appends words read from stdin.
		if args[0].static && strings.HasPrefix(args[0].lit, "-") {
			return nil, nil, notWrapper
		}
		if !args[0].static && args[0].splittable {
			return nil, nil, unanalysable
		}
		return append(append([]word(nil), args...), dynWord()), nil, stripped
	default:
		return nil, nil, notWrapper
	}
	i, opts, ok := skipOptions(args, spec)
	if !ok {
		return nil, nil, unanalysable
	}
	for _, o := range opts {
		switch {
		case ws[0].lit == "command" && (o.name == "v" || o.name == "V"):
			return nil, nil, notWrapper // `command -v` looks a name up; it runs nothing
		case ws[0].lit == "time" && (o.name == "o" || o.name == "output"):
			writes = append(writes, o.arg)
		}
	}
	if ws[0].lit == "timeout" {
		if i >= len(args) || args[i].splittable {
			return nil, nil, unanalysable
		}
		i++ // the duration
	}
	if i >= len(args) {
		return nil, nil, notWrapper
	}
	if args[i].splittable && !args[i].static {
		return nil, nil, unanalysable
	}
	return args[i:], writes, stripped
}

// runner is a command that runs another command given in its arguments. Unlike a
// wrapper it is not stripped: the outer command must itself be allowed, and the inner
// command is checked as a sub-command of its own.
type runnerResult struct {
	inner   [][]word // commands given as words
	scripts []word   // commands given as shell source (sh -c, eval)
	unknown bool     // there is an inner command we cannot see
	chdir   bool
}

var shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "mksh": true, "ash": true, "fish": true}

func innerCommands(ws []word) runnerResult {
	if len(ws) == 0 || !ws[0].static {
		return runnerResult{}
	}
	name := ws[0].lit
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	if len(ws) == 1 && !shells[name] {
		return runnerResult{}
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
		i, _, ok := skipOptions(args, spec)
		if !ok {
			return runnerResult{unknown: true}
		}
		for i < len(args) && isAssignmentWord(args[i]) {
			i++
		}
		return withInner(runnerResult{chdir: true}, args[i:])
	case name == "exec" || name == "setsid":
		i, _, ok := skipOptions(args, optSpec{noArg: "clfw", withArg: "a", longNoArg: []string{"fork", "wait", "ctty"}})
		if !ok {
			return runnerResult{unknown: true}
		}
		return withInner(runnerResult{}, args[i:])
	case shells[name]:
		return shellScript(args)
	case name == "eval":
		var parts []string
		for _, a := range args {
			if !a.static {
				return runnerResult{unknown: true}
			}
			parts = append(parts, a.lit)
		}
		return runnerResult{scripts: []word{litWord(strings.Join(parts, " "))}}
	case name == "xargs":
		return xargsInner(args)
	case name == "find":
		return findInner(args)
	}
	return runnerResult{}
}

func withInner(r runnerResult, rest []word) runnerResult {
	if len(rest) > 0 {
		r.inner = append(r.inner, rest)
	}
	return r
}

// isAssignmentWord reports NAME=value as env and sudo read it. A word we cannot read
// is treated as one, so the command after it is still looked at.
func isAssignmentWord(w word) bool {
	if !w.static {
		return false
	}
	name, _, ok := strings.Cut(w.lit, "=")
	return ok && name != "" && !strings.ContainsAny(name, "/ ")
}

// shellScript finds the -c script of `sh -c SCRIPT` (flags may be clustered: -lc, -ec).
// A shell reading its script from stdin (no operand, or -s) runs something we cannot
// see; a shell given a script file runs that file, which we do not read either, but
// that is the same limit as for any interpreter (python, node ...), so it is not flagged.
func shellScript(args []word) runnerResult {
	hasC := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.static {
			if hasC {
				return runnerResult{unknown: true}
			}
			return runnerResult{}
		}
		switch {
		case a.lit == "--":
			if hasC && i+1 < len(args) {
				return scriptWord(args[i+1])
			}
			return runnerResult{}
		case a.lit == "-o" || a.lit == "+o" || a.lit == "--rcfile" || a.lit == "--init-file" || a.lit == "-O" || a.lit == "+O":
			i++
		case strings.HasPrefix(a.lit, "--"):
		case len(a.lit) > 1 && (a.lit[0] == '-' || a.lit[0] == '+'):
			if strings.ContainsRune(a.lit[1:], 'c') {
				hasC = true
			}
			if a.lit[0] == '-' && strings.ContainsRune(a.lit[1:], 's') && !hasC {
				return runnerResult{unknown: true}
			}
		default:
			if hasC {
				return scriptWord(a)
			}
			return runnerResult{} // a script file
		}
	}
	return runnerResult{unknown: true} // -c without a script, or a script on stdin
}

func scriptWord(w word) runnerResult {
	if !w.static {
		return runnerResult{unknown: true}
	}
	return runnerResult{scripts: []word{w}}
}

var xargsSpec = optSpec{noArg: "0prtx", withArg: "adEILnPs",
	longNoArg: []string{"null", "no-run-if-empty", "verbose", "interactive", "exit", "open-tty"},
	longWithArg: []string{"arg-file", "delimiter", "eof", "replace", "max-lines", "max-args", "max-procs",
		"max-chars", "process-slot-var"}}

func xargsInner(args []word) runnerResult {
	// GNU's -i, -l and -e take an optional attached argument; normalise them away.
	var norm []word
	for k, a := range args {
		if a.static && (a.lit == "-i" || strings.HasPrefix(a.lit, "-i") || a.lit == "-l" ||
			strings.HasPrefix(a.lit, "-l") || a.lit == "-e" || strings.HasPrefix(a.lit, "-e")) && !strings.HasPrefix(a.lit, "--") {
			norm = append(norm, litWord("-I{}"))
			continue
		}
		norm = append(norm, args[k])
	}
	i, opts, ok := skipOptions(norm, xargsSpec)
	if !ok {
		return runnerResult{unknown: true}
	}
	rest := norm[i:]
	if len(rest) == 0 {
		rest = []word{litWord("echo")}
	}
	for _, o := range opts {
		if o.name == "I" || o.name == "replace" {
			// Every word may have the input spliced in.
			return runnerResult{inner: [][]word{{rest[0], dynWord()}}}
		}
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

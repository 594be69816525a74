package permission

import "strings"

// suInner follows su (and the login shell it starts): -c/--command and
// --session-command are scripts, and words after the user go to the shell. Its
// options may come anywhere.
func suInner(args []word) runnerResult {
	opts, operands, ok := permutedOptions(args, optSpec{noArg: "lmpfPhV", withArg: "cCsgGw",
		longNoArg: []string{"login", "preserve-environment", "fast", "pty", "help", "version"},
		longWithArg: []string{"command", "session-command", "shell", "group", "supp-group",
			"whitelist-environment"}})
	if !ok {
		return runnerResult{unknown: true}
	}
	r := runnerResult{chdir: true}
	for _, o := range opts {
		switch o.name {
		case "c", "C", "command", "session-command":
			sr := scriptWord(o.arg)
			r.scripts = append(r.scripts, sr.scripts...)
			r.unknown = r.unknown || sr.unknown
		}
	}
	if len(operands) > 0 && operands[0].static && operands[0].lit == "-" {
		operands = operands[1:] // `su -` is --login
	}
	if len(operands) > 1 {
		sr := shellScript(operands[1:])
		r.scripts = append(r.scripts, sr.scripts...)
		r.unknown = r.unknown || sr.unknown
		r.positional = r.positional || sr.positional
	} else if len(r.scripts) == 0 && !r.unknown {
		r.unknown = true // an interactive shell reading stdin
	}
	return r
}

// scriptInner follows util-linux script: -c/--command is run by $SHELL -c; with
// none, an interactive shell reads stdin. Its options may come anywhere.
func scriptInner(args []word) runnerResult {
	opts, _, ok := permutedOptions(args, optSpec{noArg: "aefqhV", withArg: "cEBIOTmo", optArg: "t",
		longNoArg: []string{"append", "return", "flush", "force", "quiet", "help", "version"},
		longWithArg: []string{"command", "echo", "log-in", "log-out", "log-io", "log-timing", "logging-format",
			"output-limit"},
		longOptArg: []string{"timing"}})
	if !ok {
		return runnerResult{unknown: true}
	}
	var r runnerResult
	for _, o := range opts {
		switch o.name {
		case "c", "command":
			sr := scriptWord(o.arg)
			r.scripts = append(r.scripts, sr.scripts...)
			r.unknown = r.unknown || sr.unknown
		case "h", "V", "help", "version":
			return runnerResult{}
		}
	}
	if len(r.scripts) == 0 && !r.unknown {
		r.unknown = true // an interactive shell reading stdin
	}
	return r
}

// shellScript finds the -c script of `sh -c SCRIPT` (flags may be clustered: -lc, -ec).
// A shell reading its script from stdin (no operand, -s, `-`, /dev/stdin, a
// descriptor) runs something we cannot see, and so does one given a file named at
// run time (`bash <(curl …)`, `bash "$f"`). A shell given a named script file runs
// that file, which we do not read either, but that is the same limit as for any
// interpreter (python, node ...), so it is not flagged.
func shellScript(args []word) runnerResult {
	hasC := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.static {
			return runnerResult{unknown: true}
		}
		switch {
		case a.lit == "--" || a.lit == "-":
			// `-` ends the options as `--` does; what follows is the script or its file.
			if i+1 >= len(args) {
				return runnerResult{unknown: true} // nothing after: stdin
			}
			if hasC {
				return withPositional(scriptWord(args[i+1]), args[i+2:])
			}
			return scriptFile(args[i+1])
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
				return withPositional(scriptWord(a), args[i+1:])
			}
			return scriptFile(a)
		}
	}
	return runnerResult{unknown: true} // -c without a script, or a script on stdin
}

// scriptFile is a shell's script operand: unknown when it is stdin or a descriptor.
func scriptFile(w word) runnerResult {
	if !w.static || isStdinPath(w.lit) {
		return runnerResult{unknown: true}
	}
	return runnerResult{}
}

// isStdinPath reports a file name that reads a descriptor rather than a file.
func isStdinPath(p string) bool {
	return p == "-" || p == "/dev/stdin" || strings.HasPrefix(p, "/dev/fd/") ||
		(strings.HasPrefix(p, "/proc/") && strings.Contains(p, "/fd/"))
}

func withPositional(r runnerResult, rest []word) runnerResult {
	r.positional = len(rest) > 0
	return r
}

func scriptWord(w word) runnerResult {
	if !w.static {
		return runnerResult{unknown: true}
	}
	return runnerResult{scripts: []word{w}}
}

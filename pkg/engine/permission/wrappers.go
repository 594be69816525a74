package permission

import (
	"slices"
	"strings"

	"github.com/robota-sdk/robota-go/internal/lazy"
)

// optSpec describes a command's options well enough to find where its operands start.
type optSpec struct {
	noArg       string // short flags without an argument
	withArg     string // short flags that take an argument
	optArg      string // short flags whose argument, if any, is attached (GNU's `-i[R]`)
	longNoArg   []string
	longWithArg []string
	longOptArg  []string // long options whose argument, if any, follows `=`
}

// opt is one option met while skipping options, with its argument if it takes one.
type opt struct {
	name   string // short letter or long name
	arg    word
	hasArg bool // set for options that took an argument (always, for withArg ones)
}

// optionWordKind says how a word in an option position reads.
type optionWordKind int

const (
	optionWord   optionWordKind = iota
	operandWord                 // not an option: an operand (or the command)
	endOfOptions                // `--`
	unreadable                  // decided at run time: could be an option or not
)

func classifyOptionWord(w word) optionWordKind {
	if !w.static {
		if w.splittable || len(w.toks) == 0 || w.toks[0].kind != tokLit || w.toks[0].r == '-' {
			return unreadable
		}
		return operandWord // a quoted operand such as "$CMD"
	}
	switch {
	case w.lit == "--":
		return endOfOptions
	case w.lit == "-" || !strings.HasPrefix(w.lit, "-"):
		return operandWord
	}
	return optionWord
}

// skipOptions consumes leading options. It fails (ok=false) on an unknown option or on
// a word it cannot read, because it can no longer tell where the operands begin.
func skipOptions(ws []word, spec optSpec) (i int, opts []opt, ok bool) {
	for i < len(ws) {
		switch classifyOptionWord(ws[i]) {
		case unreadable:
			return i, opts, false
		case operandWord:
			return i, opts, true
		case endOfOptions:
			return i + 1, opts, true
		}
		next, o, ok := readOption(ws, i, spec)
		opts = append(opts, o...)
		if !ok {
			return i, opts, false
		}
		i = next
	}
	return i, opts, true
}

// permutedOptions reads a command whose options may follow its operands, as GNU
// getopt allows unless the program asks otherwise (su, script). It fails as
// skipOptions does.
func permutedOptions(ws []word, spec optSpec) (opts []opt, operands []word, ok bool) {
	for i := 0; i < len(ws); {
		switch classifyOptionWord(ws[i]) {
		case unreadable:
			return opts, operands, false
		case operandWord:
			operands = append(operands, ws[i])
			i++
			continue
		case endOfOptions:
			return opts, append(operands, ws[i+1:]...), true
		}
		next, o, ok := readOption(ws, i, spec)
		opts = append(opts, o...)
		if !ok {
			return opts, operands, false
		}
		i = next
	}
	return opts, operands, true
}

// readOption reads the option word ws[i] (a cluster of short flags or one long
// option), with the next word when that is its argument, and returns the index after.
func readOption(ws []word, i int, spec optSpec) (next int, opts []opt, ok bool) {
	a := ws[i].lit
	if strings.HasPrefix(a, "--") {
		name, val, hasVal := strings.Cut(a[2:], "=")
		switch {
		case slices.Contains(spec.longNoArg, name) && !hasVal:
			return i + 1, []opt{{name: name}}, true
		case slices.Contains(spec.longWithArg, name) && hasVal:
			return i + 1, []opt{{name: name, arg: litWord(val), hasArg: true}}, true
		case slices.Contains(spec.longWithArg, name) && i+1 < len(ws):
			return i + 2, []opt{{name: name, arg: ws[i+1], hasArg: true}}, true
		case slices.Contains(spec.longOptArg, name):
			o := opt{name: name, hasArg: hasVal}
			if hasVal {
				o.arg = litWord(val)
			}
			return i + 1, []opt{o}, true
		}
		return i, nil, false
	}
	for j := 1; j < len(a); j++ {
		c := string(a[j])
		switch {
		case strings.Contains(spec.noArg, c):
			opts = append(opts, opt{name: c})
		case strings.Contains(spec.withArg, c):
			if j+1 < len(a) {
				return i + 1, append(opts, opt{name: c, arg: litWord(a[j+1:]), hasArg: true}), true
			}
			if i+1 < len(ws) {
				return i + 2, append(opts, opt{name: c, arg: ws[i+1], hasArg: true}), true
			}
			return i, opts, false
		case strings.Contains(spec.optArg, c):
			o := opt{name: c, hasArg: j+1 < len(a)}
			if o.hasArg {
				o.arg = litWord(a[j+1:])
			}
			return i + 1, append(opts, o), true
		default:
			return i, opts, false
		}
	}
	return i + 1, opts, true
}

// stripStatus says what stripWrapper found.
type stripStatus int

const (
	notWrapper   stripStatus = iota
	stripped                 // rest holds the wrapped command
	unanalysable             // a wrapper whose arguments we cannot follow
)

var niceNumber = lazy.NewRegexp(`^-[0-9]+$`)

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

package permission

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// declClauseSinks looks at declare, local, export, readonly and typeset as parsed.
func (x *extractor) declClauseSinks(c *syntax.DeclClause) {
	var ws []word
	var named []*syntax.Assign
	for _, a := range c.Args {
		switch {
		case a.Name != nil:
			named = append(named, a)
		case a.Value != nil:
			ws = append(ws, renderWord(a.Value))
		}
	}
	flags := x.declWords(c.Variant.Value, ws)
	for _, a := range named {
		if strings.Contains(flags, "n") && a.Value != nil {
			x.nameArg(renderWord(a.Value), x.text(c))
		}
		if strings.Contains(flags, "i") {
			x.reevalState().intVars[a.Name.Value] = true
		}
	}
}

// declWords looks at declaration words bash parses itself (quoted or computed ones,
// or all of them for `command declare …`) and returns the attribute letters set.
func (x *extractor) declWords(variant string, ws []word) (flags string) {
	type assignment struct{ name, value, where string }
	var assigned []assignment
	for _, w := range ws {
		where := variant + " " + renderTokens(w.toks)
		if !w.static {
			x.evaluatedAgain(where)
			continue
		}
		if strings.HasPrefix(w.lit, "-") || strings.HasPrefix(w.lit, "+") {
			flags += w.lit[1:]
			continue
		}
		name, value, hasValue := strings.Cut(w.lit, "=")
		name = strings.TrimSuffix(name, "+")
		x.nameArg(litWord(name), where)
		if !hasValue {
			continue
		}
		assigned = append(assigned, assignment{name, value, where})
		if strings.HasPrefix(value, "(") {
			x.evaluatedAgain(where) // a compound assignment is parsed again
		}
		if !intLiteral.MatchString(value) {
			x.taint(baseName(name))
		}
		if promptVars(name) && strings.ContainsAny(value, "$`") {
			x.evaluatedAgain(where)
		}
	}
	for _, a := range assigned {
		if strings.Contains(flags, "i") {
			x.reevalState().intVars[baseName(a.name)] = true
			x.operandText(a.value, a.where)
		}
		if strings.Contains(flags, "n") {
			x.nameArg(litWord(a.value), a.where)
		}
	}
	return flags
}

// nameArg looks at a word bash takes as a variable name: a subscript in it is
// evaluated, so only a plain name or a numeric subscript is safe.
func (x *extractor) nameArg(w word, where string) {
	if !w.static {
		x.evaluatedAgain(where)
		return
	}
	open := strings.IndexByte(w.lit, '[')
	if open < 0 {
		return
	}
	sub := strings.TrimSuffix(w.lit[open+1:], "]")
	if !isDigits(sub) && sub != "@" && sub != "*" {
		x.evaluatedAgain(where)
	}
}

func baseName(name string) string {
	if i := strings.IndexByte(name, '['); i >= 0 {
		return name[:i]
	}
	return name
}

// builtinSinks looks at a simple command (wrappers stripped) for builtins that take
// variable names or keep a script for later. It returns the scripts to parse.
func (x *extractor) builtinSinks(ws []word) (scripts []word) {
	if len(ws) == 0 || !ws[0].static {
		return nil
	}
	name, args := ws[0].lit, ws[1:]
	text := renderTokens(joinWords(ws))
	names := func(list []word) {
		for _, w := range list {
			x.nameArg(w, text)
			x.taint(baseName(w.lit))
		}
	}
	switch name {
	case "printf":
		_, opts, ok := skipOptions(args, optSpec{withArg: "v"})
		if !ok {
			x.evaluatedAgain(text)
		}
		for _, o := range opts {
			names([]word{o.arg})
		}
	case "read":
		i, opts, ok := skipOptions(args, optSpec{noArg: "ers", withArg: "adinNptu"})
		if !ok {
			x.evaluatedAgain(text)
			return nil
		}
		for _, o := range opts {
			if o.name == "a" {
				names([]word{o.arg})
			}
		}
		names(args[i:])
	case "mapfile", "readarray":
		i, opts, ok := skipOptions(args, optSpec{noArg: "t", withArg: "dnOsuCc"})
		if !ok {
			x.evaluatedAgain(text)
			return nil
		}
		names(args[i:])
		for _, o := range opts {
			if o.name == "C" {
				// Evaluated as `CALLBACK INDEX 'LINE'` for every line read.
				scripts = append(scripts, appendedScript(o.arg, x, text)...)
			}
		}
	case "getopts":
		if len(args) >= 2 {
			names(args[1:2])
		}
	case "wait":
		_, opts, ok := skipOptions(args, optSpec{noArg: "fn", withArg: "p"})
		if !ok {
			x.evaluatedAgain(text)
		}
		for _, o := range opts {
			names([]word{o.arg})
		}
	case "unset":
		i, _, ok := skipOptions(args, optSpec{noArg: "fvn"})
		if !ok {
			x.evaluatedAgain(text)
			return nil
		}
		for _, w := range args[i:] {
			x.nameArg(w, text)
		}
	case "test", "[":
		for k, w := range args {
			if k > 0 && (!args[k-1].static || args[k-1].lit == "-v" || args[k-1].lit == "-R") {
				x.nameArg(w, text)
			}
		}
	case "let":
		for _, w := range args {
			if !w.static {
				x.evaluatedAgain(text)
				continue
			}
			x.operandText(w.lit, text)
		}
	case "declare", "typeset", "local", "export", "readonly":
		x.declWords(name, args)
	case "set":
		for _, w := range args {
			if !w.static || w.lit == "--" || !strings.HasPrefix(w.lit, "-") && !strings.HasPrefix(w.lit, "+") {
				x.taint("@")
			}
		}
	case "source", ".":
		if len(args) > 1 {
			x.taint("@")
		}
		if len(args) > 0 && (!args[0].static || isStdinPath(args[0].lit)) {
			// Like `bash /dev/stdin`: a script from a pipe or <(…) that we do not see.
			x.unknown(fmt.Sprintf("script read by %q from stdin or a descriptor", name))
		}
	case "trap":
		i, _, ok := skipOptions(args, optSpec{noArg: "lpP"})
		if !ok {
			x.evaluatedAgain(text)
			return nil
		}
		if ops := args[i:]; len(ops) >= 2 {
			switch a := ops[0]; {
			case !a.static:
				x.evaluatedAgain(text)
			case a.lit != "-" && a.lit != "" && !isDigits(a.lit):
				scripts = append(scripts, a)
			}
		}
	case "compgen":
		opts, _, ok := permutedOptions(args, optSpec{noArg: "abcdefgjksuvI", withArg: "AGWFCXPSVo"})
		if !ok {
			x.evaluatedAgain(text)
			return nil
		}
		for _, o := range opts {
			switch o.name {
			case "C":
				scripts = append(scripts, appendedScript(o.arg, x, text)...)
			case "W":
				if !o.arg.static || strings.ContainsAny(o.arg.lit, "$`") {
					x.evaluatedAgain(text) // the word list is expanded
				}
			case "V":
				names([]word{o.arg})
			}
		}
	case "alias":
		for _, w := range args {
			if !w.static {
				x.evaluatedAgain(text)
				continue
			}
			if _, value, ok := strings.Cut(w.lit, "="); ok && !strings.HasPrefix(w.lit, "-") {
				// With expand_aliases, the value replaces the name as source text.
				scripts = append(scripts, litWord(value))
			}
		}
	}
	return scripts
}

// appendedScript is a callback bash evaluates with words appended (mapfile -C,
// compgen -C): `CALLBACK ARG 'TEXT'`. The callback must parse with something
// run-time in the place of the appended words.
func appendedScript(cb word, x *extractor, where string) []word {
	if !cb.static {
		x.evaluatedAgain(where)
		return nil
	}
	return []word{litWord(cb.lit + ` 0 "$__appended"`)}
}

// envAssigns looks at NAME=value words a runner puts in the environment (env, sudo).
func (x *extractor) envAssigns(ws []word) {
	for _, w := range ws {
		name, value, _ := strings.Cut(w.lit, "=")
		switch {
		case strings.HasPrefix(name, "BASH_FUNC_"):
			x.evaluatedAgain(w.lit) // an exported function: bash imports its body
		case promptVars(name) && strings.ContainsAny(value, "$`"):
			x.evaluatedAgain(w.lit)
		}
		if !intLiteral.MatchString(value) {
			x.taint(name)
		}
	}
}

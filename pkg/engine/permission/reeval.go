package permission

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/robota-sdk/robota-go/internal/lazy"
)

// Bash evaluates some text a second time, after the line's own expansions, and a
// `$(…)` or backtick in that text then runs, although the parser saw only a string:
//
//   - a variable name with a subscript, `a[$(cmd)]`, given to printf -v, read,
//     mapfile, test -v, [[ -v ]], unset, wait -p, getopts, declare and its family, or
//     named by a nameref or ${!ref}: the subscript is expanded;
//   - arithmetic ($((…)), ((…)), let, for ((…)), [[ x -eq y ]], subscripts, ${s:o:l},
//     declare -i values, RANDOM=…): a variable's value is evaluated as an expression,
//     recursively, and a subscript in it is expanded; quoted text in it is too;
//   - prompt expansion: ${x@P} and PS4 (with xtrace);
//   - scripts kept for later: trap, mapfile -C, compgen -C and -W, alias.
//
// Scripts are parsed like eval's. For the rest the extractor marks the line unknown
// when the re-evaluated text is visible and holds code, is only known at run time, or
// is a variable the line itself may have set to such text ("tainted"). Values from the
// engine's environment are trusted; values the line sets, reads or computes are not.

// reeval collects, over the whole line, what finishReeval needs.
type reeval struct {
	reads   map[string]string // variable → where its value is evaluated
	tainted map[string]bool   // variables the line may set to arbitrary text
	intVars map[string]bool   // declared with the integer attribute
	values  map[string][]*syntax.Word
	// reported: the line already has its unknown sub-command for re-evaluated text.
	reported bool
}

// alwaysTainted are variables bash itself fills with text from the line, a file or a
// command: never trusted as arithmetic.
func alwaysTainted(s string) bool {
	switch s {
	case "_", "BASH_COMMAND", "BASH_REMATCH", "REPLY", "MAPFILE", "OPTARG", "PWD", "OLDPWD", "DIRSTACK",
		"BASH_ARGV", "BASH_EXECUTION_STRING", "FUNCNAME", "BASH_SOURCE", "COPROC", "READLINE_LINE", "COMP_LINE",
		"COMP_WORDS", "BASH_ALIASES", "BASH_CMDS":
		return true
	}
	return false
}

// Assigning to these evaluates the value as arithmetic.
func arithVars(s string) bool {
	switch s {
	case "RANDOM", "SRANDOM", "OPTIND", "HISTCMD":
		return true
	}
	return false
}

// Prompt strings are expanded (PS4 for every traced command): their value is code.
func promptVars(s string) bool {
	switch s {
	case "PS0", "PS1", "PS2", "PS3", "PS4", "PROMPT_COMMAND":
		return true
	}
	return false
}

var (
	identifier = lazy.NewRegexp(`[A-Za-z_][A-Za-z0-9_]*`)
	intLiteral = lazy.NewRegexp(`^[-+]?[0-9]+$`)
	numericSeq = lazy.NewRegexp(`^\{[-+]?[0-9]+\.\.[-+]?[0-9]+(\.\.[-+]?[0-9]+)?\}$`)
)

func (x *extractor) reevalState() *reeval {
	if x.re == nil {
		x.re = &reeval{reads: map[string]string{}, tainted: map[string]bool{}, intVars: map[string]bool{},
			values: map[string][]*syntax.Word{}}
	}
	return x.re
}

// evaluatedAgain reports text bash evaluates again that runs something we cannot check.
// One such sub-command decides as well as many, and adding one per occurrence, each
// quoting its context, would make a long line quadratic: only the first is kept.
func (x *extractor) evaluatedAgain(what string) {
	re := x.reevalState()
	if re.reported {
		return
	}
	re.reported = true
	if len(what) > maxReasonBytes {
		what = strings.ToValidUTF8(what[:maxReasonBytes], "") + "…"
	}
	x.unknown("text bash evaluates again: " + what)
}

const maxReasonBytes = 160

func (x *extractor) taint(name string) {
	x.reevalState().tainted[name] = true
}

func (x *extractor) read(name, where string) {
	re := x.reevalState()
	if _, ok := re.reads[name]; !ok {
		re.reads[name] = where
	}
}

// reevalWalk looks at one parsed script for the constructs listed above.
func (x *extractor) reevalWalk(f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.ArithmExp:
			x.arith(n.X, x.text(n))
		case *syntax.ArithmCmd:
			x.arith(n.X, x.text(n))
		case *syntax.CStyleLoop:
			for _, e := range []syntax.ArithmExpr{n.Init, n.Cond, n.Post} {
				x.arith(e, "for (( … ))")
			}
		case *syntax.LetClause:
			for _, e := range n.Exprs {
				x.arith(e, x.text(n))
			}
		case *syntax.ParamExp:
			x.paramExp(n)
		case *syntax.Assign:
			x.assign(n)
		case *syntax.DeclClause:
			x.declClauseSinks(n)
		case *syntax.ForClause:
			if it, ok := n.Loop.(*syntax.WordIter); ok && (n.Select || !safeLoopItems(it)) {
				x.taint(it.Name.Value)
			}
		case *syntax.FuncDecl:
			x.taint("@") // its positional parameters are whatever callers pass
		case *syntax.BinaryTest:
			switch n.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
				for _, side := range []syntax.TestExpr{n.X, n.Y} {
					if w, ok := side.(*syntax.Word); ok {
						x.operand(w, x.text(n))
					} else {
						x.evaluatedAgain(x.text(n))
					}
				}
			}
		case *syntax.UnaryTest:
			if n.Op == syntax.TsVarSet || n.Op == syntax.TsRefVar {
				if w, ok := n.X.(*syntax.Word); ok {
					x.nameArg(renderWord(w), x.text(n))
				} else {
					x.evaluatedAgain(x.text(n))
				}
			}
		}
		return true
	})
}

// safeLoopItems: `for i in 1 2 3` and `for i in {1..9}` only ever hold integers.
func safeLoopItems(it *syntax.WordIter) bool {
	if !it.InPos.IsValid() {
		return false // `for x; do`: the positional parameters
	}
	for _, w := range it.Items {
		if l := w.Lit(); l == "" || !(intLiteral.MatchString(l) || numericSeq.MatchString(l)) {
			return false
		}
	}
	return true
}

// arith looks at an arithmetic expression: every operand is evaluated.
func (x *extractor) arith(e syntax.ArithmExpr, where string) {
	switch e := e.(type) {
	case *syntax.BinaryArithm:
		x.arith(e.X, where)
		x.arith(e.Y, where)
	case *syntax.UnaryArithm:
		x.arith(e.X, where)
	case *syntax.ParenArithm:
		x.arith(e.X, where)
	case *syntax.FlagsArithm:
		x.arith(e.X, where)
	case *syntax.Word:
		x.operand(e, where)
	case nil:
	default:
		x.evaluatedAgain(where)
	}
}

// operand looks at a word whose value bash evaluates as an arithmetic expression.
func (x *extractor) operand(w *syntax.Word, where string) {
	for _, p := range w.Parts {
		x.operandPart(p, where)
	}
}

func (x *extractor) operandPart(p syntax.WordPart, where string) {
	switch p := p.(type) {
	case *syntax.Lit:
		x.operandText(p.Value, where)
	case *syntax.SglQuoted:
		x.operandText(p.Value, where)
	case *syntax.DblQuoted:
		for _, q := range p.Parts {
			x.operandPart(q, where)
		}
	case *syntax.ParamExp:
		switch {
		case p.Length:
			return // ${#x} is a number
		case p.Param == nil:
			x.evaluatedAgain(where)
			return
		}
		x.read(paramName(p.Param.Value), where)
		if p.Exp != nil && p.Exp.Word != nil {
			x.operand(p.Exp.Word, where) // ${x:-default}: the default may be the value
		}
		if p.Repl != nil && p.Repl.With != nil {
			x.operand(p.Repl.With, where)
		}
	case *syntax.ArithmExp:
		// A number; its own operands are looked at where the walk meets it.
	default:
		// $(…), `…`, <(…), globs: text known only at run time.
		x.evaluatedAgain(where)
	}
}

// operandText looks at literal text evaluated as arithmetic: a `$` or backtick in it
// is expanded in subscripts, and every name in it is a variable read.
func (x *extractor) operandText(s, where string) {
	if strings.ContainsAny(s, "$`") {
		x.evaluatedAgain(where)
		return
	}
	for _, name := range identifier.FindAllString(s, -1) {
		x.read(name, where)
	}
}

// paramName folds the positional parameters into one name.
func paramName(p string) string {
	if p == "@" || p == "*" || isDigits(p) {
		return "@"
	}
	return p
}

func (x *extractor) paramExp(p *syntax.ParamExp) {
	where := x.text(p)
	if p.Index != nil {
		if w, ok := p.Index.(*syntax.Word); !ok || (w.Lit() != "@" && w.Lit() != "*") {
			x.arith(p.Index, where)
		}
	}
	if p.Slice != nil {
		x.arith(p.Slice.Offset, where)
		x.arith(p.Slice.Length, where)
	}
	if p.Param == nil {
		return
	}
	name := paramName(p.Param.Value)
	if p.Excl && p.Names == 0 && p.Index == nil {
		x.read(name, where) // ${!x}: the variable x names, subscript and all
	}
	if p.Exp == nil {
		return
	}
	switch p.Exp.Op {
	case syntax.OtherParamOps:
		if p.Exp.Word == nil || strings.Contains(p.Exp.Word.Lit(), "P") || p.Exp.Word.Lit() == "" {
			x.evaluatedAgain(where) // ${x@P}: prompt expansion of the value
		}
	case syntax.AssignUnset, syntax.AssignUnsetOrNull:
		if p.Exp.Word == nil || !intLiteral.MatchString(p.Exp.Word.Lit()) {
			x.taint(name)
		}
	}
}

// assign looks at NAME=value, NAME[i]=value and NAME=(…) wherever they are.
func (x *extractor) assign(a *syntax.Assign) {
	if a.Name == nil {
		return // a naked declare argument: declClauseSinks
	}
	name, where := a.Name.Value, x.text(a)
	if a.Index != nil {
		x.arith(a.Index, where)
	}
	switch {
	case a.Array != nil:
		x.taint(name)
		for _, el := range a.Array.Elems {
			if el.Index != nil {
				x.arith(el.Index, where)
			}
		}
	case a.Value != nil:
		re := x.reevalState()
		re.values[name] = append(re.values[name], a.Value)
		if !isIntegerWord(a.Value) {
			x.taint(name)
		}
		if arithVars(name) {
			x.operand(a.Value, where)
		}
		if promptVars(name) {
			if v := renderWord(a.Value); !v.static || strings.ContainsAny(v.lit, "$`") {
				x.evaluatedAgain(where)
			}
		}
	}
}

// isIntegerWord reports a value that can only be made of digits and signs:
// literals, $((…)) and ${#x}, as in i=$((i+1)).
func isIntegerWord(w *syntax.Word) bool {
	var ok func(p syntax.WordPart) bool
	ok = func(p syntax.WordPart) bool {
		switch p := p.(type) {
		case *syntax.Lit:
			return p.Value != "" && strings.Trim(p.Value, "0123456789+-") == ""
		case *syntax.ArithmExp:
			return true
		case *syntax.ParamExp:
			return p.Length
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if !ok(q) {
					return false
				}
			}
			return len(p.Parts) > 0
		}
		return false
	}
	for _, p := range w.Parts {
		if !ok(p) {
			return false
		}
	}
	return len(w.Parts) > 0
}

// finishReeval marks the line unknown where a tainted variable's value is evaluated.
func (x *extractor) finishReeval() {
	re := x.re
	if re == nil {
		return
	}
	for _, name := range slices.Sorted(maps.Keys(re.intVars)) {
		for _, v := range re.values[name] {
			x.operand(v, name+"=… (integer variable)")
		}
	}
	var hit []string
	for _, name := range slices.Sorted(maps.Keys(re.reads)) {
		if re.tainted[name] || alwaysTainted(name) {
			hit = append(hit, name)
		}
	}
	if len(hit) > 0 {
		x.evaluatedAgain(fmt.Sprintf("%s evaluates %s, which may hold text set at run time",
			re.reads[hit[0]], strings.Join(hit, ", ")))
	}
}

package permission

import (
	"fmt"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// SubCommand is one simple command found in a Bash command line, after Claude Code's
// wrappers are stripped. Every sub-command must be allowed for the line to be allowed.
type SubCommand struct {
	// Text is the command as written (or a description, for a command we cannot see).
	Text string
	// Match is the rendering allow rules are matched against; run-time parts show as `…`.
	Match string
	// Unknown marks a command hidden from us (eval of a variable, env -S, sh -c "$X" ...).
	Unknown bool

	// computedName: the program's name is only known at run time ($CMD args).
	computedName bool
	// opaque: what the command reads and writes is not known from its words (a program
	// not in the command table, an interpreter running code, git printing history or
	// writing its work tree from it). Only a sandbox can hold a file rule against it.
	opaque bool

	allow []ctok   // allow rules must match this definitely
	deny  [][]ctok // deny and ask rules are tried against each of these

	// What the command table knows of it (effects.go): the paths it reads and writes,
	// for an unknown command every argument (names), the dangerous form a prefix
	// allow rule does not approve, and whether it is read-only (plan mode).
	reads, writes, names []word
	danger               string
	readOnly             bool
	recursive            bool     // its reads include everything below the directories named
	skipsHidden          bool     // and leave out hidden entries there
	followsLinks         bool     // and follow symlinks met there
	includes             []string // and open only files whose base name matches these
	trees                []tree   // directories written below under names not on the line
}

// Target is a file named by a redirection.
type Target struct {
	Path  string // as written, tilde kept
	Known bool   // false: the name is only known at run time
	Tilde bool   // Path starts with an unquoted ~ (home directory)
	Text  string // the redirection's word as written
}

// Command is a Bash command line analysed for permission purposes.
type Command struct {
	Subs   []SubCommand
	Writes []Target // output redirections (and time -o): writes to files
	Reads  []Target // input redirections
	// ChangesDir is set when the line may change directory (cd, pushd, env -C, an
	// unknown command ...) so relative redirection targets cannot be placed.
	ChangesDir bool

	// cdTargets are the directories `cd` and `pushd` name in the line, in any order;
	// cdUnknown is set when the line may change to a directory we cannot name. The
	// operands of commands are placed relative to every directory the line may be in.
	cdTargets   []word
	cdUnknown   bool
	hasCd       bool // the line runs cd, pushd or popd
	homeUnknown bool // the line may set HOME: ~ is unknown
}

// setsAny reports a name in the line other than as a plain expansion ($NAME,
// ${NAME}): an assignment, a declaration, read NAME ... (a false alarm only asks).
func setsAny(src string, names ...string) bool {
	for _, n := range names {
		rest := strings.ReplaceAll(strings.ReplaceAll(src, "${"+n+"}", ""), "$"+n, "")
		if strings.Contains(rest, n) {
			return true
		}
	}
	return false
}

const (
	maxScriptDepth  = 8
	maxCommandBytes = 256 << 10
)

// devTargets are redirection targets that are not files in the project sense.
func devTargets(s string) bool {
	switch s {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty":
		return true
	}
	return false
}

// ParseCommand parses a Bash command line with mvdan.cc/sh and splits it into
// sub-commands: on `&&`, `||`, `;`, `|`, `|&`, `&` and newlines, and into the bodies
// of subshells, blocks, control structures, functions, `$(…)`, backticks and process
// substitutions, and into commands run by sh -c, eval, env, sudo, xargs and find -exec.
// It fails on anything it cannot parse or cannot fully account for.
func ParseCommand(src string) (*Command, error) {
	if strings.ContainsRune(src, 0) {
		return nil, fmt.Errorf("%w: NUL byte in command", ErrUnparsableCommand)
	}
	if len(src) > maxCommandBytes {
		return nil, fmt.Errorf("%w: longer than %d bytes", ErrUnparsableCommand, maxCommandBytes)
	}
	// CDPATH set by the line makes every relative cd go anywhere (the engine's own
	// environment is trusted, as for arithmetic).
	x := &extractor{cmd: &Command{}}
	if err := x.script(src, 0); err != nil {
		return nil, err
	}
	x.finishReeval()
	// The line may set what cd and ~ use (HOME, PWD, OLDPWD, CDPATH, DIRSTACK): then
	// cd targets and ~ are unknown. The engine's own environment is trusted, as for
	// arithmetic.
	if x.cmd.hasCd && (setsAny(src, "CDPATH", "PWD", "HOME", "DIRSTACK") || strings.Contains(src, "cdable_vars")) {
		x.cmd.cdUnknown = true
	}
	x.cmd.homeUnknown = setsAny(src, "HOME")
	return x.cmd, nil
}

type extractor struct {
	cmd   *Command
	seen  map[syntax.Command]bool
	depth int
	src   string  // the source of the script being walked, for text()
	re    *reeval // text bash evaluates again, over the whole line
}

// text returns a node's source text. Slicing the source keeps the walk linear where
// printing every node would be quadratic in the nesting depth.
func (x *extractor) text(n syntax.Node) string {
	start, end := n.Pos().Offset(), n.End().Offset()
	if n.Pos().IsValid() && n.End().IsValid() && start <= end && end <= uint(len(x.src)) {
		return x.src[start:end]
	}
	return printNode(n)
}

// script parses one piece of shell source and extracts everything it runs. It then
// walks the whole tree once more: a command node the extractor did not visit means
// a construct it does not understand, and the line is refused rather than guessed.
func (x *extractor) script(src string, depth int) error {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		return fmt.Errorf("%w: %w", ErrUnparsableCommand, err)
	}
	saved, savedDepth, savedSrc := x.seen, x.depth, x.src
	x.seen, x.depth, x.src = map[syntax.Command]bool{}, depth, src
	defer func() { x.seen, x.depth, x.src = saved, savedDepth, savedSrc }()
	x.stmts(f.Stmts)
	x.reevalWalk(f)
	var missed syntax.Command
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, ok := n.(syntax.Command); ok && !x.seen[c] && missed == nil {
			missed = c
		}
		return missed == nil
	})
	if missed != nil {
		return fmt.Errorf("%w: unsupported construct %T", ErrUnparsableCommand, missed)
	}
	return nil
}

func (x *extractor) stmts(list []*syntax.Stmt) {
	for _, s := range list {
		x.stmt(s)
	}
}

func (x *extractor) stmt(s *syntax.Stmt) {
	if s == nil {
		return
	}
	for _, r := range s.Redirs {
		x.redirect(r)
	}
	if s.Cmd == nil {
		return
	}
	x.seen[s.Cmd] = true
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		x.callExpr(c)
	case *syntax.BinaryCmd:
		x.stmt(c.X)
		x.stmt(c.Y)
	case *syntax.Subshell:
		x.stmts(c.Stmts)
	case *syntax.Block:
		x.stmts(c.Stmts)
	case *syntax.IfClause:
		for ic := c; ic != nil; ic = ic.Else {
			x.seen[ic] = true
			x.stmts(ic.Cond)
			x.stmts(ic.Then)
		}
	case *syntax.WhileClause:
		x.stmts(c.Cond)
		x.stmts(c.Do)
	case *syntax.ForClause:
		x.nested(c.Loop)
		x.stmts(c.Do)
	case *syntax.CaseClause:
		x.nested(c.Word)
		for _, item := range c.Items {
			for _, p := range item.Patterns {
				x.nested(p)
			}
			x.stmts(item.Stmts)
		}
	case *syntax.FuncDecl:
		if c.Name == nil {
			delete(x.seen, c) // zsh's anonymous function: not bash; refused by script()
			return
		}
		// Defining a function can shadow any command name, so it needs a rule of its own.
		x.opaque(x.text(c))
		x.stmt(c.Body)
	case *syntax.TimeClause:
		x.stmt(c.Stmt) // the `time` keyword is a wrapper
	case *syntax.CoprocClause:
		// A coprocess also defines shell variables; it needs a rule of its own.
		x.opaque(x.text(c))
		if c.Name != nil {
			x.nested(c.Name)
		}
		x.stmt(c.Stmt)
	case *syntax.DeclClause:
		x.declClause(c)
	default:
		// ArithmCmd, TestClause, LetClause: matched as written; their expansions may run commands.
		x.opaque(x.text(c))
		x.nested(c)
	}
}

// nested extracts the commands inside command and process substitutions anywhere below n.
func (x *extractor) nested(n syntax.Node) {
	if n == nil {
		return
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		switch s := n.(type) {
		case *syntax.CmdSubst:
			x.stmts(s.Stmts)
			return false
		case *syntax.ProcSubst:
			x.stmts(s.Stmts)
			return false
		}
		return true
	})
}

func (x *extractor) opaque(text string) {
	t := litTokens(text)
	x.add(SubCommand{Text: text, allow: t, deny: [][]ctok{t}, readOnly: true})
}

func (x *extractor) unknown(text string) {
	t := []ctok{{kind: tokDyn}}
	x.cmd.ChangesDir = true
	x.cmd.cdUnknown = true
	x.add(SubCommand{Text: text, Unknown: true, allow: t, deny: [][]ctok{t}})
}

func (x *extractor) add(s SubCommand) {
	s.Match = renderTokens(s.allow)
	x.cmd.Subs = append(x.cmd.Subs, s)
}

func (x *extractor) declClause(c *syntax.DeclClause) {
	ws := []word{litWord(c.Variant.Value)}
	for _, a := range c.Args {
		x.nested(a)
		ws = append(ws, renderAssign(a))
	}
	t := joinWords(ws)
	x.add(SubCommand{Text: x.text(c), allow: t, deny: [][]ctok{t}, readOnly: true, opaque: steersPrograms(ws[1:])})
}

func renderAssign(a *syntax.Assign) word {
	if a.Name == nil { // a naked declare argument, evaluated at run time
		if a.Value == nil {
			return dynWord()
		}
		return renderWord(a.Value)
	}
	w := word{static: true}
	head := a.Name.Value
	if a.Index != nil {
		head += "[…]"
		w.static = false
	}
	if !a.Naked {
		if a.Append {
			head += "+"
		}
		head += "="
	}
	w.toks = litTokens(head)
	switch {
	case a.Array != nil:
		w.toks = append(w.toks, ctok{kind: tokDyn})
		w.static = false
	case a.Value != nil:
		v := renderWord(a.Value)
		w.toks = append(w.toks, v.toks...)
		w.static = w.static && v.static
	}
	if w.static {
		w.lit = renderTokens(w.toks)
	}
	return w
}

func (x *extractor) callExpr(c *syntax.CallExpr) {
	var assigns, words []word
	for _, a := range c.Assigns {
		x.nested(a)
		assigns = append(assigns, renderAssign(a))
	}
	for _, w := range c.Args {
		x.nested(w)
		words = append(words, renderWord(w))
	}
	if len(words) == 0 {
		// A bare assignment changes the shell's state (PATH=..., IFS=...) for what follows.
		t := joinWords(assigns)
		x.add(SubCommand{Text: x.text(c), allow: t, deny: [][]ctok{t}, readOnly: true, opaque: steersPrograms(assigns)})
		return
	}
	x.simple(x.text(c), assigns, words)
}

// simple records one simple command: wrappers stripped for the allow form, every
// spelling kept for the deny forms, and the commands it runs added as sub-commands.
func (x *extractor) simple(text string, assigns, words []word) {
	orig := words
	for {
		rest, writes, st := stripWrapper(words)
		for _, w := range writes {
			x.target(&x.cmd.Writes, w, w.lit)
		}
		if st == unanalysable {
			x.unknown(fmt.Sprintf("command run by %q with arguments we cannot follow", words[0].lit))
		}
		if st != stripped {
			break
		}
		words = rest
	}
	if name := words[0]; !name.static || name.lit == "cd" || name.lit == "pushd" || name.lit == "popd" ||
		name.lit == "source" || name.lit == "." {
		x.cmd.ChangesDir = true
		x.changeDir(words)
	}
	allow := joinWords(append(append([]word(nil), assigns...), words...))
	var deny [][]ctok
	for _, ws := range [][]word{words, orig} {
		deny = append(deny, joinWords(ws), joinWords(append(append([]word(nil), assigns...), ws...)))
		// The program's base name: /bin/rm and ./rm are rm. A computed name may hold a
		// slash anywhere, so its base name could be anything.
		switch {
		case ws[0].static && !ws[0].tilde && strings.Contains(ws[0].lit, "/"):
			deny = append(deny, joinWords(append([]word{litWord(path.Base(ws[0].lit))}, ws[1:]...)))
		case !ws[0].static || ws[0].tilde:
			deny = append(deny, joinWords(append([]word{dynWord()}, ws[1:]...)))
		}
	}
	sub := SubCommand{Text: text, allow: allow, deny: deny, computedName: !words[0].static}
	ef := effectsOf(words)
	sub.reads, sub.writes, sub.danger, sub.readOnly, sub.recursive = ef.reads, ef.writes, ef.danger, ef.readOnly, ef.recursive
	sub.skipsHidden, sub.followsLinks, sub.includes, sub.trees = ef.skipsHidden, ef.followsLinks, ef.includes, ef.trees
	sub.opaque = opaqueProgram(words, ef) || unsafeEnv(assigns) != ""
	if ef.unknown && words[0].static {
		sub.names = words[1:]
	}
	x.add(sub)

	r := innerCommands(words)
	r.scripts = append(r.scripts, x.builtinSinks(words)...)
	x.envAssigns(r.assigns)
	if r.positional {
		x.taint("@")
	}
	if r.chdir {
		x.cmd.ChangesDir = true
		x.cmd.cdUnknown = true
	}
	if r.unknown {
		x.unknown(fmt.Sprintf("command run by %q that we cannot see", words[0].lit))
	}
	if x.depth >= maxScriptDepth && (len(r.inner) > 0 || len(r.scripts) > 0) {
		x.unknown("commands nested too deeply")
		return
	}
	envDanger := unsafeEnv(r.assigns)
	for _, in := range r.inner {
		x.depth++
		at := len(x.cmd.Subs)
		x.simple(fmt.Sprintf("%s (run by %s)", renderTokens(joinWords(in)), words[0].lit), nil, in)
		if envDanger != "" && at < len(x.cmd.Subs) && x.cmd.Subs[at].danger == "" {
			// NAME=value given by env or sudo can make the command run something else
			// (GIT_CONFIG_*, PAGER, LD_PRELOAD ...): a prefix rule does not approve it.
			x.cmd.Subs[at].danger = "run with " + envDanger + " set, which can change what it runs"
			x.cmd.Subs[at].readOnly = false
			x.cmd.Subs[at].opaque = true
		}
		x.depth--
	}
	for _, s := range r.scripts {
		if err := x.script(s.lit, x.depth+1); err != nil {
			x.unknown(fmt.Sprintf("script run by %q that does not parse: %v", words[0].lit, err))
		}
	}
}

// changeDir records where cd and pushd go; anything else that changes directory
// (source, a computed command, `cd -`) could go anywhere, except popd, which returns
// to a directory the line was in.
func (x *extractor) changeDir(ws []word) {
	name := ws[0]
	if !name.static || (name.lit != "cd" && name.lit != "pushd" && name.lit != "popd") {
		x.cmd.cdUnknown = true
		return
	}
	x.cmd.hasCd = true
	if name.lit == "popd" {
		return
	}
	args := ws[1:]
	for len(args) > 0 && args[0].static && len(args[0].lit) > 1 && args[0].lit[0] == '-' && args[0].lit != "--" {
		args = args[1:] // -L, -P, -e, -@
	}
	if len(args) > 0 && args[0].static && args[0].lit == "--" {
		args = args[1:]
	}
	switch {
	case len(args) == 0:
		t := litWord("~")
		t.tilde = true
		x.cmd.cdTargets = append(x.cmd.cdTargets, t)
	case args[0].static && args[0].lit == "-":
		x.cmd.cdUnknown = true // OLDPWD may come from the engine's environment
	case args[0].static && (!args[0].tilde || args[0].lit == "~" || strings.HasPrefix(args[0].lit, "~/")) &&
		!strings.HasPrefix(args[0].lit, "+") && !(name.lit == "pushd" && strings.HasPrefix(args[0].lit, "-")):
		x.cmd.cdTargets = append(x.cmd.cdTargets, args[0])
	default:
		x.cmd.cdUnknown = true
	}
}

func (x *extractor) redirect(r *syntax.Redirect) {
	x.nested(r.Word)
	if r.Hdoc != nil {
		x.nested(r.Hdoc)
	}
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob,
		syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob:
		x.target(&x.cmd.Writes, renderWord(r.Word), x.text(r.Word))
	case syntax.RdrInOut:
		x.target(&x.cmd.Writes, renderWord(r.Word), x.text(r.Word))
		x.target(&x.cmd.Reads, renderWord(r.Word), x.text(r.Word))
	case syntax.RdrIn:
		x.target(&x.cmd.Reads, renderWord(r.Word), x.text(r.Word))
	case syntax.DplOut, syntax.DplIn:
		w := renderWord(r.Word)
		if w.static && (w.lit == "-" || isDigits(w.lit)) {
			return // duplicating or closing a descriptor
		}
		if r.Op == syntax.DplOut {
			x.target(&x.cmd.Writes, w, x.text(r.Word))
		} else {
			x.target(&x.cmd.Reads, w, x.text(r.Word))
		}
	case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
	default:
		x.target(&x.cmd.Writes, dynWord(), x.text(r))
	}
}

func (x *extractor) target(list *[]Target, w word, text string) {
	t := Target{Path: w.lit, Known: w.static, Tilde: w.tilde, Text: text}
	if t.Tilde && t.Path != "~" && !strings.HasPrefix(t.Path, "~/") {
		t.Known = false // ~user: someone else's home
	}
	if t.Known && (devTargets(t.Path) || isDevFD(t.Path)) {
		return
	}
	*list = append(*list, t)
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func isDevFD(p string) bool {
	n, ok := strings.CutPrefix(p, "/dev/fd/")
	return ok && isDigits(n)
}

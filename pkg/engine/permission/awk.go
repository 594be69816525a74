package permission

import (
	"strings"

	"github.com/robota-sdk/robota-go/internal/lazy"
)

// awkSpec covers POSIX awk, gawk, mawk and busybox awk. The program (the first
// operand unless -f, -E or -e gives it) is scanned for what runs programs or writes
// files; a program read from a file is unknown.
var awkSpec = &lazy.Value[*cmdSpec]{Build: func() *cmdSpec {
	return &cmdSpec{
		opts: optSpec{noArg: "bcCghMNnOPrsStVY", withArg: "FvfEeilW", optArg: "dDLop",
			longNoArg: []string{"characters-as-bytes", "traditional", "copyright", "gen-pot", "help", "bignum",
				"use-lc-numeric", "non-decimal-data", "optimize", "posix", "re-interval", "no-optimize", "sandbox",
				"lint-old", "version", "csv"},
			longWithArg: []string{"field-separator", "assign", "file", "exec", "source", "include", "load"},
			longOptArg:  []string{"dump-variables", "debug", "lint", "pretty-print", "profile"}},
		// awk's options end at the program (no GNU permutation).
		abbrev: true, inOrder: true, operands: roleRead,
		optRoles: map[string]role{"f": roleRead, "file": roleRead, "E": roleRead, "exec": roleRead,
			"d": roleWrite, "dump-variables": roleWrite, "o": roleWrite, "pretty-print": roleWrite,
			"p": roleWrite, "profile": roleWrite},
		danger: map[string]string{"f": "awk -f runs a program we do not see", "file": "awk -f runs a program we do not see",
			"E": "awk -E runs a program we do not see", "exec": "awk --exec runs a program we do not see",
			"i": "awk -i loads a library we do not see", "include": "awk --include loads a library we do not see",
			"l": "awk -l loads an extension", "load": "awk --load loads an extension",
			"d": "awk -d writes a file", "dump-variables": "awk --dump-variables writes a file",
			"o": "awk -o writes a file", "pretty-print": "awk --pretty-print writes a file",
			"p": "awk -p writes a file", "profile": "awk --profile writes a file",
			"D": "awk -D starts a debugger", "debug": "awk --debug starts a debugger"},
		post: awkPost,
	}
}}

func awkPost(p *parsed, ef *effects) {
	ops := p.operands
	var programs []word
	for _, o := range p.opts {
		switch o.name {
		case "e", "source":
			programs = append(programs, o.arg)
		case "W":
			// mawk's -W exec FILE and friends; only harmless ones are known.
			if !litIn(o.arg, "version", "usage", "help", "interactive", "dump", "posix_space", "posix") {
				ef.setDanger("awk -W " + o.arg.lit + " is an option we do not know")
			}
		}
	}
	sandbox := p.has("S", "sandbox")
	if !p.has("f", "file", "E", "exec", "e", "source") {
		if len(ops) == 0 {
			return
		}
		programs = append(programs, ops[0])
		// The program operand was taken as a read path by the spec: undo that.
		ef.reads = ef.reads[:0]
		ops = ops[1:]
		for _, w := range ops {
			ef.add(roleRead, w)
		}
	}
	// Operands of the form NAME=VALUE are assignments, not files.
	kept := ef.reads[:0]
	for _, w := range ef.reads {
		if w.static && isAssignmentWord(w) && identifier.FindString(strings.SplitN(w.lit, "=", 2)[0]) == strings.SplitN(w.lit, "=", 2)[0] {
			continue
		}
		kept = append(kept, w)
	}
	ef.reads = kept
	for _, prog := range programs {
		if !prog.static {
			ef.setDanger("an awk program known only at run time")
			continue
		}
		a := awkProgram(prog.lit)
		if a.danger != "" && !sandbox {
			ef.setDanger(a.danger)
			switch {
			case a.write != "":
				ef.add(roleWrite, litWord(a.write))
			case a.writes:
				ef.add(roleWrite, dynWord())
			}
		}
		if a.readsFiles {
			ef.unknownReads()
		}
	}
}

// awkProgram scans awk source for what a read-only prefix rule must not approve:
// system(), output redirection in print and printf, pipes to and from commands
// (`print | "cmd"`, `"cmd" | getline`, gawk's `|&`), and gawk's @include, @load and
// indirect calls. It reports readsFiles for `getline < FILE`. Strings, regular
// expressions and comments are skipped; `/` after an operand is division.
func awkProgram(src string) (a awkScan) {
	prevOperand := false
	inPrint, printDepth, depth := false, 0, 0
	getline := false
	// header marks parentheses opened by if, while and for: after their `)` a
	// statement starts, so a `/` opens a regular expression; after any other `)` it
	// divides.
	var header []bool
	keyword := ""
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			inPrint, getline, prevOperand = false, false, false
		case c == '"':
			for i++; i < len(src) && src[i] != '"'; i++ {
				if src[i] == '\\' {
					i++
				}
			}
			prevOperand = true
		case c == '/' && !prevOperand:
			inBracket := false
			for i++; i < len(src); i++ {
				if src[i] == '\\' {
					i++
					continue
				}
				if src[i] == '[' {
					inBracket = true
				} else if src[i] == ']' {
					inBracket = false
				} else if src[i] == '/' && !inBracket {
					break
				} else if src[i] == '\n' {
					return awkScan{danger: "an awk program we cannot read"}
				}
			}
			prevOperand = true
		case c == '\n' || c == ';' || c == '{' || c == '}':
			inPrint, getline, prevOperand = false, false, false
			if c == '\n' && i > 0 && src[i-1] == '\\' {
				continue
			}
		case c == '(' || c == '[':
			depth++
			header = append(header, c == '(' && (keyword == "if" || keyword == "while" || keyword == "for"))
			prevOperand = false
		case c == ')' || c == ']':
			depth--
			prevOperand = true
			if n := len(header); n > 0 {
				prevOperand = !header[n-1]
				header = header[:n-1]
			}
		case (c == '+' || c == '-') && i+1 < len(src) && src[i+1] == c:
			i++ // ++ and --: postfix after an operand keeps it one
		case c == '|':
			if i+1 < len(src) && src[i+1] == '|' {
				i++
				prevOperand = false
				continue
			}
			return awkScan{danger: "awk pipes to or from a command"}
		case c == '>':
			if inPrint && depth == printDepth {
				// The file: a string literal names it; anything else is computed.
				a = awkScan{danger: "awk print writes to a file", writes: true}
				j := i + 1
				for j < len(src) && (src[j] == '>' || src[j] == ' ' || src[j] == '\t') {
					j++
				}
				if j < len(src) && src[j] == '"' {
					k := j + 1
					for k < len(src) && src[k] != '"' && src[k] != '\\' {
						k++
					}
					if k < len(src) && src[k] == '"' {
						a.write = src[j+1 : k]
					}
				}
				return a
			}
			prevOperand = false
		case c == '<':
			if getline {
				a.readsFiles = true
			}
			prevOperand = false
		case c == '@':
			return awkScan{danger: "awk @include, @load or an indirect call"}
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(src) && (src[j] == '_' || src[j] >= 'a' && src[j] <= 'z' || src[j] >= 'A' && src[j] <= 'Z' || src[j] >= '0' && src[j] <= '9') {
				j++
			}
			id := src[i:j]
			i = j - 1
			prevOperand = true
			switch id {
			case "system":
				return awkScan{danger: "awk system() runs a command"}
			case "print", "printf":
				inPrint, printDepth, prevOperand = true, depth, false
			case "getline":
				getline = true // its value may be divided: prevOperand stays
			case "return", "in", "case", "do", "else", "while", "if", "for":
				prevOperand = false
			}
			keyword = id
			continue
		case c >= '0' && c <= '9' || c == '.':
			prevOperand = true
		case c == '$':
			prevOperand = false
		case c == ' ' || c == '\t' || c == '\r' || c == '\\':
			continue // keeps the keyword before a `(`
		default:
			prevOperand = false
		}
		keyword = ""
	}
	return a
}

// awkScan is what awkProgram found.
type awkScan struct {
	danger     string
	readsFiles bool   // getline < FILE
	writes     bool   // print > FILE
	write      string // FILE, when a string literal names it
}

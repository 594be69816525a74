package permission

import (
	"strings"

	"github.com/robota-sdk/robota-go/internal/lazy"
)

// sedSpec is GNU sed (busybox sed reads the same scripts). -i edits the operands in
// place; the script (the first operand unless -e or -f gives it) is parsed for the
// commands that run programs (e, s///e) or write files (w, W, s///w), and r/R read
// files.
var sedSpec = &lazy.Value[*cmdSpec]{Build: func() *cmdSpec {
	return &cmdSpec{
		opts: optSpec{noArg: "nErsuzb", withArg: "efl", optArg: "i",
			longNoArg: []string{"quiet", "silent", "debug", "posix", "regexp-extended", "separate", "sandbox",
				"unbuffered", "null-data", "zero-terminated", "follow-symlinks", "binary", "help", "version"},
			longWithArg: []string{"expression", "file", "line-length"},
			longOptArg:  []string{"in-place"}},
		abbrev: true, operands: roleRead,
		optRoles: map[string]role{"f": roleRead, "file": roleRead},
		danger: map[string]string{"i": "sed -i edits files in place", "in-place": "sed --in-place edits files in place",
			"f": "sed -f runs a script we do not see", "file": "sed --file runs a script we do not see"},
		post: sedPost,
	}
}}

func sedPost(p *parsed, ef *effects) {
	var scripts []word
	for _, o := range p.opts {
		if o.name == "e" || o.name == "expression" {
			scripts = append(scripts, o.arg)
		}
	}
	ops := p.operands
	if !p.has("e", "expression", "f", "file") && len(ops) > 0 {
		scripts = append(scripts, ops[0])
		ops = ops[1:]
		ef.reads = nil
		for _, o := range p.opts {
			if (o.name == "f" || o.name == "file") && o.hasArg {
				ef.add(roleRead, o.arg)
			}
		}
		for _, w := range ops {
			ef.add(roleRead, w)
		}
	}
	if p.has("i", "in-place") {
		for _, w := range ops {
			ef.add(roleWrite, w)
		}
	}
	sandbox := p.has("sandbox")
	for _, s := range scripts {
		if !s.static {
			ef.setDanger("a sed script known only at run time")
			continue
		}
		sc := parseSed(s.lit)
		if sc.danger != "" && !sandbox {
			ef.setDanger(sc.danger)
		}
		for _, r := range sc.reads {
			ef.add(roleRead, litWord(r))
		}
		for _, w := range sc.writes {
			ef.add(roleWrite, litWord(w))
		}
	}
}

type sedScript struct {
	danger        string
	reads, writes []string
}

// parseSed reads a GNU sed script far enough to find its e, w, W, r and R commands
// and the e and w flags of s. What it cannot read is a dangerous form.
func parseSed(src string) (sc sedScript) {
	i := 0
	n := len(src)
	toEOL := func() string {
		j := i
		for j < n && src[j] != '\n' {
			j++
		}
		s := src[i:j]
		i = j
		return s
	}
	skipBlank := func() {
		for i < n && (src[i] == ' ' || src[i] == '\t') {
			i++
		}
	}
	// delimited reads up to the unescaped delimiter d and reports whether it was found.
	delimited := func(d byte) bool {
		for ; i < n; i++ {
			switch src[i] {
			case '\\':
				i++
			case d:
				i++
				return true
			case '\n':
				if d != '\n' {
					return false
				}
			}
		}
		return false
	}
	address := func() bool {
		switch {
		case i < n && src[i] >= '0' && src[i] <= '9':
			for i < n && (src[i] >= '0' && src[i] <= '9' || src[i] == '~') {
				i++
			}
		case i < n && src[i] == '$':
			i++
		case i < n && src[i] == '/':
			i++
			if !delimited('/') {
				return false
			}
			for i < n && (src[i] == 'I' || src[i] == 'M') {
				i++
			}
		case i+1 < n && src[i] == '\\':
			d := src[i+1]
			i += 2
			if !delimited(d) {
				return false
			}
			for i < n && (src[i] == 'I' || src[i] == 'M') {
				i++
			}
		case i < n && (src[i] == '+' || src[i] == '~'):
			i++
			for i < n && src[i] >= '0' && src[i] <= '9' {
				i++
			}
		}
		return true
	}
	fail := func(why string) sedScript {
		return sedScript{danger: why, reads: sc.reads, writes: sc.writes}
	}
	for i < n {
		for i < n && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == ';') {
			i++
		}
		if i >= n {
			break
		}
		if !address() {
			return fail("a sed script we cannot read")
		}
		skipBlank()
		if i < n && src[i] == ',' {
			i++
			skipBlank()
			if !address() {
				return fail("a sed script we cannot read")
			}
			skipBlank()
		}
		for i < n && (src[i] == '!' || src[i] == ' ' || src[i] == '\t') {
			i++
		}
		if i >= n {
			return fail("a sed script we cannot read")
		}
		c := src[i]
		i++
		switch c {
		case '{', '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		case '#':
			toEOL()
		case ':':
			// GNU ends a label at `;` as well as at a newline: `:a;N;$!ba`.
			for i < n && src[i] != ';' && src[i] != '\n' {
				i++
			}
		case 'a', 'i', 'c':
			// Text to the end of the line, continued by a trailing backslash.
			for {
				line := toEOL()
				if !strings.HasSuffix(line, "\\") || i >= n {
					break
				}
				i++
			}
		case 'b', 't', 'T', 'v':
			for i < n && src[i] != ';' && src[i] != '\n' && src[i] != '}' {
				i++
			}
		case 'q', 'Q', 'l', 'L':
			skipBlank()
			for i < n && src[i] >= '0' && src[i] <= '9' {
				i++
			}
		case 'r', 'R':
			skipBlank()
			sc.reads = append(sc.reads, toEOL())
		case 'w', 'W':
			skipBlank()
			sc.writes = append(sc.writes, toEOL())
			return fail("sed " + string(c) + " writes a file")
		case 'e':
			return fail("sed e runs a command")
		case 'y':
			if i >= n {
				return fail("a sed script we cannot read")
			}
			d := src[i]
			i++
			if !delimited(d) || !delimited(d) {
				return fail("a sed script we cannot read")
			}
		case 's':
			if i >= n || src[i] == '\n' || src[i] == '\\' {
				return fail("a sed script we cannot read")
			}
			d := src[i]
			i++
			if !delimited(d) || !delimited(d) {
				return fail("a sed script we cannot read")
			}
		flags:
			for i < n {
				f := src[i]
				switch {
				case f == 'g' || f == 'p' || f == 'i' || f == 'I' || f == 'm' || f == 'M' || f >= '0' && f <= '9':
					i++
					continue
				case f == 'e':
					return fail("sed s///e runs a command")
				case f == 'w':
					i++
					skipBlank()
					sc.writes = append(sc.writes, toEOL())
					return fail("sed s///w writes a file")
				}
				break flags
			}
		default:
			return fail("a sed command we do not know (" + string(c) + ")")
		}
	}
	return sc
}

package permission

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// fuzzReadRules only allow reading.
var fuzzReadRules = []string{"Bash(cat *)", "Bash(tac *)", "Bash(head *)", "Bash(grep *)", "Bash(find *)",
	"Bash(awk *)", "Bash(sed *)", "Bash(sort *)", "Bash(git log *)", "Bash(git status *)", "Bash(git diff *)",
	"Bash(git show *)", "Bash(rg *)", "Bash(tar -t *)", "Bash(ls *)", "Bash(echo *)", "Bash(wc *)", "Bash(uniq *)",
	"Bash(xargs *)", "Bash(env *)", "Bash(cut *)", "Bash(diff *)", "Bash(xxd *)", "Bash(cd *)", "Bash(tree *)"}

// FuzzBashEffects checks, for arbitrary command lines, that rules which only allow
// reading approve no command that writes or deletes a path or runs a program, and
// that no allowed command reads a denied path:
//
//   - an approved line is also approved in plan mode (it is read-only) and with every
//     write denied (Edit(//**)): it writes nothing we can see;
//   - independently of the command table, on the syntax tree: no approved find has an
//     action that deletes, writes or runs; no approved sed has -i; no approved sort
//     has -o; no approved awk program calls system(); and no approved cat names the
//     denied file, literally or by a glob, nor does any command read it by redirection.
func FuzzBashEffects(f *testing.F) {
	for _, s := range append(append(append([]string(nil), bashSeeds...), everyday...), effectSeeds...) {
		f.Add(s)
	}
	dir, err := filepath.EvalSymlinks(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	project := filepath.Join(dir, "p")
	for _, p := range []string{"secret.txt", "a.txt", "src/b.go"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(project, p)), 0o755); err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(project, p), []byte("x"), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	build := func(mode Mode, denies ...string) *Evaluator {
		rules, err := Rules(Layer{Source: Source{Name: "fuzz"}, Allow: fuzzReadRules, Deny: append([]string{"Read(secret*)"}, denies...)})
		if err != nil {
			f.Fatal(err)
		}
		return New(Config{Mode: mode, Rules: rules, ProjectRoot: project, Home: filepath.Join(dir, "h")})
	}
	ro, plan, noWrite := build(ModeDefault), build(ModePlan), build(ModeDefault, "Edit(//**)")
	f.Fuzz(func(t *testing.T, cmd string) {
		in, err := json.Marshal(map[string]string{"command": cmd})
		if err != nil {
			return
		}
		var sent map[string]string
		if err := json.Unmarshal(in, &sent); err != nil {
			t.Fatal(err)
		}
		cmd = sent["command"]
		req := Request{Tool: "Bash", Input: in, Cwd: project}
		if d := ro.Evaluate(req); d.Behavior != Allow {
			return
		}
		if d := plan.Evaluate(req); d.Behavior != Allow {
			t.Fatalf("%q: approved by read-only rules but refused in plan mode: %s", cmd, d.Reason)
		}
		if d := noWrite.Evaluate(req); d.Behavior != Allow {
			t.Fatalf("%q: approved by read-only rules but it writes: %s", cmd, d.Reason)
		}
		if why := oracleWritesOrReadsSecret(cmd); why != "" {
			t.Fatalf("%q: approved by read-only rules, but %s", cmd, why)
		}
	})
}

var effectSeeds = []string{
	"find . -delete", "find . -exec rm {} +", "find . -fprint x", "sed -i s/a/b/ a.txt", "sed 's/a/b/w x' a.txt",
	"sed 1e a.txt", "sort -o x a.txt", "sort --out=x a.txt", "awk 'BEGIN{system(\"id\")}'", "awk '{print > \"x\"}' a.txt",
	"awk '{print | \"sh\"}'", "cat secret.txt", "cat secret*", "cat s*", "cat *", "cat < secret.txt", "wc -l ./secret.txt",
	"tac src/../secret.txt", "git -c core.pager=sh log", "rg --pre sh x", "tar -t --to-command=sh -f a.tar",
	"uniq a.txt b.txt", "xxd a.txt b.txt", "cd src && cat ../secret.txt", "echo secret.txt | xargs cat",
	"env sed -i s/a/b/ a.txt", "ls | xargs sed -i s/x/y/", "tree -o x", "git diff --output=x",
}

// oracleWritesOrReadsSecret walks the syntax tree without the command table.
func oracleWritesOrReadsSecret(cmd string) string {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
	if err != nil {
		return "it does not parse"
	}
	var why string
	syntax.Walk(f, func(n syntax.Node) bool {
		if why != "" {
			return false
		}
		switch n := n.(type) {
		case *syntax.Redirect:
			if n.Op == syntax.RdrIn {
				if w, ok := oracleLiteral(n.Word); ok && strings.HasPrefix(path.Base(path.Clean(w)), "secret") {
					why = "it reads the denied file by redirection"
				}
			}
		case *syntax.CallExpr:
			why = oracleCall(n.Args)
		}
		return true
	})
	return why
}

func oracleCall(args []*syntax.Word) string {
	var ws []string
	for _, a := range args {
		s, ok := oracleLiteral(a)
		if !ok {
			s = "\x00" + printNode(a) // not literal: kept as written, marked
		}
		ws = append(ws, s)
	}
	// Wrappers and runners without options of their own.
	for len(ws) > 1 && (ws[0] == "env" || ws[0] == "nice" || ws[0] == "xargs" || ws[0] == "command" || ws[0] == "timeout" && len(ws) > 2) {
		if ws[0] == "timeout" {
			ws = ws[1:]
		}
		ws = ws[1:]
	}
	if len(ws) == 0 {
		return ""
	}
	name, rest := path.Base(ws[0]), ws[1:]
	switch name {
	case "find":
		argTaking := map[string]bool{"-name": true, "-iname": true, "-path": true, "-ipath": true, "-regex": true,
			"-iregex": true, "-wholename": true, "-iwholename": true, "-lname": true, "-ilname": true, "-printf": true,
			"-type": true, "-newer": true, "-perm": true, "-user": true, "-group": true, "-size": true, "-mtime": true,
			"-maxdepth": true, "-mindepth": true, "-samefile": true, "-D": true, "-regextype": true, "-context": true,
			"-anewer": true, "-cnewer": true, "-files0-from": true, "-xtype": true, "-uid": true, "-gid": true,
			"-atime": true, "-ctime": true, "-mmin": true, "-amin": true, "-cmin": true, "-used": true, "-links": true,
			"-inum": true, "-fstype": true}
		for i, w := range rest {
			switch w {
			case "-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls":
				prev := ""
				if i > 0 {
					prev = rest[i-1]
				}
				if !argTaking[prev] && !(strings.HasPrefix(prev, "-newer") && len(prev) == len("-newerXY")) {
					return "find " + w + " was approved"
				}
			}
		}
	case "sed":
		for i, w := range rest {
			if w == "--" {
				break
			}
			if i > 0 && (rest[i-1] == "-e" || rest[i-1] == "-f" || rest[i-1] == "-l" || rest[i-1] == "--expression" || rest[i-1] == "--file") {
				continue
			}
			if strings.HasPrefix(w, "--in-place") || w == "-i" || strings.HasPrefix(w, "-i") && !strings.HasPrefix(w, "--") {
				return "sed " + w + " was approved"
			}
		}
	case "sort":
		for i := 0; i < len(rest); i++ {
			w := rest[i]
			if w == "--" || !strings.HasPrefix(w, "-") || w == "-" {
				if w == "--" {
					break
				}
				continue
			}
			if strings.HasPrefix(w, "--") {
				name, _, hasVal := strings.Cut(w[2:], "=")
				if name != "" && strings.HasPrefix("output", name) {
					return "sort " + w + " was approved"
				}
				// Long options may be abbreviated: a prefix of one taking a value takes the next word.
				for _, l := range []string{"key", "field-separator", "temporary-directory", "buffer-size", "sort",
					"random-source", "files0-from", "parallel", "batch-size", "compress-program"} {
					if name != "" && strings.HasPrefix(l, name) && !hasVal {
						i++
						break
					}
				}
				continue
			}
			for j := 1; j < len(w); j++ {
				if w[j] == 'o' {
					return "sort " + w + " was approved"
				}
				if strings.IndexByte("ktTS", w[j]) >= 0 {
					if j == len(w)-1 {
						i++
					}
					break
				}
			}
		}
	case "awk", "gawk", "mawk", "nawk":
		// The program is the first operand when no -f, -e or --source gives one.
		for i := 0; i < len(rest); i++ {
			w := rest[i]
			if w == "--" {
				if i+1 < len(rest) && oracleAwkSystem(rest[i+1]) {
					return "awk system() was approved"
				}
				break
			}
			if strings.HasPrefix(w, "-") {
				if w == "-v" || w == "-F" || w == "-W" {
					i++
				}
				if strings.HasPrefix(w, "-f") || strings.HasPrefix(w, "-e") || strings.HasPrefix(w, "-E") ||
					strings.HasPrefix(w, "--") {
					break
				}
				continue
			}
			if oracleAwkSystem(w) {
				return "awk system() was approved"
			}
			break
		}
	case "cat":
		// GNU cat has no option taking a value: every other word is a file. Only
		// paths in the working directory are checked (the rule is anchored there).
		for _, w := range rest {
			if lit, ok := strings.CutPrefix(w, "\x00"); ok {
				// A glob in the project's directory that can expand to the secret.
				if !strings.ContainsAny(lit, "$`'\"\\{~[") && strings.ContainsAny(lit, "*?") && !strings.Contains(lit, "/") {
					if m, _ := path.Match(lit, "secret.txt"); m {
						return name + " " + lit + " reads the denied file"
					}
				}
				continue
			}
			if strings.HasPrefix(path.Base(path.Clean(w)), "secret") && !strings.HasPrefix(w, "/") &&
				!strings.HasPrefix(w, "~") && !strings.Contains(w, "..") && !strings.HasPrefix(w, "-") {
				return name + " " + w + " reads the denied file"
			}
		}
	}
	return ""
}

// oracleAwkSystem reports `system` followed by `(` outside double-quoted strings in
// a program without `/` or `#` (regular expressions and comments are the command
// table's business; the oracle abstains there).
func oracleAwkSystem(prog string) bool {
	if strings.ContainsAny(prog, "/#\x00") {
		return false
	}
	inStr := false
	for i := 0; i < len(prog); i++ {
		c := prog[i]
		switch {
		case inStr && c == '\\':
			i++
		case c == '"':
			inStr = !inStr
		case !inStr && strings.HasPrefix(prog[i:], "system"):
			j := i + len("system")
			for j < len(prog) && (prog[j] == ' ' || prog[j] == '\t') {
				j++
			}
			prev := byte(' ')
			if i > 0 {
				prev = prog[i-1]
			}
			if j < len(prog) && prog[j] == '(' && prev != '/' && !isIdentByte(prev) {
				return true
			}
		}
	}
	return false
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

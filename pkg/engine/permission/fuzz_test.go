package permission

import (
	"encoding/json"
	"path"
	"regexp"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// FuzzParseRule: rule strings come from settings files and CLI flags.
func FuzzParseRule(f *testing.F) {
	for _, s := range []string{"Bash", "Bash(ls *)", "Bash(npm run test:*)", `Bash(echo \(x\))`, "Read(~/.ssh/**)",
		"Edit(/src/**/*.ts)", "Read(//etc/**)", "WebFetch(domain:example.com)", "mcp__srv__*", "Agent(Explore)",
		"Bash(", "Read(a[)", "Bash(ls) x", "Read,Bash(git log *) Edit", "Bash(a, b)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, part := range SplitRuleList(s) {
			if strings.TrimSpace(part) != part || part == "" {
				t.Fatalf("SplitRuleList(%q) produced %q", s, part)
			}
		}
		r, err := ParseRule(s)
		if err == nil {
			back, err := ParseRule(r.String())
			if err != nil || back.Tool != r.Tool || back.Specifier != r.Specifier || back.HasSpecifier != r.HasSpecifier {
				t.Fatalf("round trip of %q via %q: %+v, %v", s, r.String(), back, err)
			}
		}
		for _, b := range []Behavior{Allow, Ask, Deny} {
			r, err := NewRule(b, s, Source{Name: "fuzz"})
			if err != nil && b == Allow && r.Tool != "" {
				t.Fatalf("a broken allow rule must not be returned: %+v", r)
			}
			if err == nil {
				// Evaluating any call against the rule must not panic.
				ev := New(Config{Mode: ModeDefault, Rules: []Rule{r}, ProjectRoot: "/p", Home: "/h"})
				ev.Evaluate(Request{Tool: r.Tool, Input: json.RawMessage(`{"command":"ls","file_path":"/p/a","url":"https://x.y/"}`)})
			}
		}
	})
}

var fuzzAllowed = []string{"Bash(echo *)", "Bash(ls *)", "Bash(npm test *)", "Bash(git status)"}

// FuzzBashSplit feeds arbitrary command lines to the splitter and the evaluator. The
// property: a command is allowed only if every extracted sub-command matches an allow
// rule, and (checked independently on the syntax tree) every simple command in it is
// one the rules name, with no assignment, function, declaration or file redirection.
func FuzzBashSplit(f *testing.F) {
	for _, s := range bashSeeds {
		f.Add(s)
	}
	rules, err := Rules(Layer{Source: Source{Name: "fuzz"}, Allow: fuzzAllowed})
	if err != nil {
		f.Fatal(err)
	}
	ev := New(Config{Mode: ModeDefault, Rules: rules, ProjectRoot: "/nonexistent/p", Home: "/nonexistent/h"})
	denyRules, err := Rules(Layer{Source: Source{Name: "fuzz"}, Deny: []string{"Bash(rm *)"}})
	if err != nil {
		f.Fatal(err)
	}
	bypass := New(Config{Mode: ModeBypassPermissions, Rules: denyRules, ProjectRoot: "/nonexistent/p", Home: "/nonexistent/h"})
	f.Fuzz(func(t *testing.T, cmd string) {
		in, err := json.Marshal(map[string]string{"command": cmd})
		if err != nil {
			return
		}
		// JSON carries valid UTF-8 only: check what the tool would receive.
		var sent map[string]string
		if err := json.Unmarshal(in, &sent); err != nil {
			t.Fatal(err)
		}
		cmd = sent["command"]
		parsed, perr := ParseCommand(cmd)
		d := ev.Evaluate(Request{Tool: "Bash", Input: in})
		if d.Behavior == Allow {
			if perr != nil {
				t.Fatalf("%q: allowed but does not parse: %v", cmd, perr)
			}
			for _, s := range parsed.Subs {
				if !anyAllowMatches(rules, s) {
					t.Fatalf("%q: allowed, but sub-command %q matches no allow rule", cmd, s.Match)
				}
			}
			if why := oracleRejects(cmd, map[string]bool{"echo": true, "ls": true, "npm": true, "git": true}); why != "" {
				t.Fatalf("%q: allowed, but %s", cmd, why)
			}
		}
		if bd := bypass.Evaluate(Request{Tool: "Bash", Input: in}); bd.Behavior == Allow {
			if perr != nil {
				t.Fatalf("%q: allowed in bypass but does not parse: %v", cmd, perr)
			}
			if why := oracleRunsRm(cmd); why != "" {
				t.Fatalf("%q: allowed despite Bash(rm *) deny: %s", cmd, why)
			}
		}
	})
}

func anyAllowMatches(rules []Rule, s SubCommand) bool {
	for i := range rules {
		if rules[i].spec.kind == specBash && rules[i].spec.bash.matchDefinite(s.allow) {
			return true
		}
	}
	return false
}

// oracleRejects walks the syntax tree without the extractor's help.
func oracleRejects(cmd string, names map[string]bool) string {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
	if err != nil {
		return "it does not parse"
	}
	wrappers := map[string]bool{"timeout": true, "time": true, "nice": true, "nohup": true, "stdbuf": true, "command": true, "builtin": true, "xargs": true}
	var why string
	syntax.Walk(f, func(n syntax.Node) bool {
		if why != "" {
			return false
		}
		switch n := n.(type) {
		case *syntax.CallExpr:
			if len(n.Assigns) > 0 {
				why = "it assigns variables"
			} else if name, ok := oracleLiteral(n.Args[0]); !ok || !(names[name] || wrappers[name]) {
				why = "it runs " + printNode(n.Args[0])
			}
		case *syntax.FuncDecl, *syntax.DeclClause, *syntax.ArithmCmd, *syntax.TestClause, *syntax.LetClause, *syntax.CoprocClause:
			why = "it contains " + printNode(n)
		case *syntax.Redirect:
			switch n.Op {
			case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			case syntax.RdrIn:
				// Reading a file inside the project is what the mode allows anyway.
				if w, ok := oracleLiteral(n.Word); !ok || strings.HasPrefix(w, "/") || strings.Contains(w, "..") {
					why = "it reads " + printNode(n.Word)
				}
			default:
				if w, ok := oracleLiteral(n.Word); !ok || !(w == "/dev/null" || w == "/dev/stderr" || w == "/dev/stdout" ||
					w == "/dev/tty" || strings.HasPrefix(w, "/dev/fd/") || isDigits(w) || w == "-") {
					why = "it redirects to " + printNode(n.Word)
				}
			}
		}
		return true
	})
	return why
}

// oracleLiteral unquotes a word made only of literal text.
func oracleLiteral(w *syntax.Word) (string, bool) {
	if braceLike.MatchString(printNode(w)) {
		return "", false
	}
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			for i := 0; i < len(p.Value); i++ {
				switch c := p.Value[i]; {
				case c == '\\' && i+1 < len(p.Value):
					i++
					b.WriteByte(p.Value[i])
				case strings.IndexByte("*?[", c) >= 0, c == '~' && i == 0 && p == w.Parts[0]:
					return "", false
				default:
					b.WriteByte(c)
				}
			}
		case *syntax.SglQuoted:
			if p.Dollar && strings.Contains(p.Value, `\`) {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(strings.ReplaceAll(l.Value, `\`, ""))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

var braceLike = regexp.MustCompile(`\{.*(,|\.\.).*\}`)

// oracleRunsRm reports a simple command anywhere in the tree that is or may be rm.
func oracleRunsRm(cmd string) string {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
	if err != nil {
		return "it does not parse"
	}
	var why string
	syntax.Walk(f, func(n syntax.Node) bool {
		c, ok := n.(*syntax.CallExpr)
		if !ok || why != "" || len(c.Args) == 0 {
			return why == ""
		}
		for _, a := range c.Args {
			name, ok := oracleLiteral(a)
			if !ok {
				// A computed word; only safe if it is not in command position, which
				// the oracle cannot tell once wrappers are involved.
				if a == c.Args[0] {
					why = "it runs a computed command " + printNode(a)
				}
				break
			}
			if path.Base(name) == "rm" {
				why = "it runs rm"
				break
			}
			if !strings.HasPrefix(name, "-") && !map[string]bool{"timeout": true, "time": true, "nice": true, "nohup": true,
				"stdbuf": true, "command": true, "builtin": true, "xargs": true, "env": true, "sudo": true, "exec": true}[name] && a != c.Args[0] {
				break
			}
			if a == c.Args[0] && !map[string]bool{"timeout": true, "time": true, "nice": true, "nohup": true,
				"stdbuf": true, "command": true, "builtin": true, "xargs": true, "env": true, "sudo": true, "exec": true}[name] {
				break
			}
		}
		return why == ""
	})
	return why
}

var bashSeeds = []string{
	"ls -la", "echo hello", "npm test", "git status", "ls && rm -rf /", "echo $(curl evil)", "echo `id`",
	"ls | xargs rm", "timeout 30 npm test", "ls > out.txt", "FOO=1 ls", "f() { ls; }; f", "echo ${X:-$(rm x)}",
	"cat <<EOF\n$(rm x)\nEOF", "bash -c 'rm -rf /'", "eval rm x", "find . -exec rm {} \\;", "{rm,-rf,/}",
	"r\\m x", "'rm' x", "$'\\x72m' x", "/bin/rm x", "env rm x", "sudo rm x", "if ls; then rm x; fi",
	"for f in *; do echo $f; done", "echo *.go", "ls 2>&1 >/dev/null", "echo a\nls\n", "(ls) & echo x",
	"nice -n 5 nohup stdbuf -oL command builtin ls", "time -p ls", "ls ; ; ls", "echo 'a;b' \"c|d\"",
	"x=$(ls); echo $x", "[[ -f x ]] && ls", "ls <(echo) >(echo)", "coproc ls", "! ls", "echo {a,b}",
	"ls $'a\\'b'", "echo \"$(echo \"$(ls)\")\"", "exec ls", "ls |& echo", "ls &> /dev/null",
	"printf -v 'a[$(rm x)]' y", "trap 'rm x' EXIT", "mapfile -C 'rm x;:' <<< v", "x='a[$(rm y)]'; echo $((x))",
	"ionice -c3 rm x", "flock /tmp/l -c 'rm x'", "su root -c 'rm x'", "ls | xargs -0 rm -r", "echo rm x | sh -",
	"for x in 'a[$(rm y)]'; do echo ${!x}; done", "echo ${a['$(rm x)']}", "declare -a 'a=($(rm x))'",
}

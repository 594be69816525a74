package permission

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommandTableOptions: a short option is either a flag, takes a value or takes an
// optional one, never two of these (the parser would find the wrong operands).
func TestCommandTableOptions(t *testing.T) {
	specs := map[string]*cmdSpec{"rsync": rsyncSpec.Get(), "jq": jqSpec.Get()}
	for name, s := range commandTable.Get() {
		specs[name] = s
	}
	for name, s := range specs {
		for _, c := range s.opts.noArg {
			if strings.ContainsRune(s.opts.withArg, c) || strings.ContainsRune(s.opts.optArg, c) {
				t.Errorf("%s: -%c is both a flag and takes a value", name, c)
			}
		}
		for _, c := range s.opts.withArg {
			if strings.ContainsRune(s.opts.optArg, c) {
				t.Errorf("%s: -%c takes a value and an optional one", name, c)
			}
		}
		for opt := range s.danger {
			if len(opt) == 1 && !strings.Contains(s.opts.noArg+s.opts.withArg+s.opts.optArg, opt) {
				t.Errorf("%s: dangerous -%s is not an option the parser knows", name, opt)
			}
		}
	}
}

// TestEffectsOperands pins where the table finds operands.
func TestEffectsOperands(t *testing.T) {
	for _, tc := range []struct {
		cmd           string
		reads, writes string
		danger        bool
	}{
		{"grep -e PAT file", "file", "", false},
		{"grep PAT file", "file", "", false},
		{"sed -n 1p file", "file", "", false},
		{"awk -f prog file", "prog file", "", true},
		{"head -n 5 file", "file", "", false},
		{"cp -t dir src", "src", "dir dir/src", false},
		{"dd if=a of=b", "a", "b", false},
		{"tar -xf a.tar -C dir", "a.tar", "dir", false},
		{"rsync src dst", "src", "dst", false},
		{"install -m 644 a b", "a", "b b/a", false},
		{"ln -s target name", "target", "name target name/target", false},
		{"tee -a f", "", "f", false},
		{"truncate -s 0 f", "", "f", false},
		{"chmod 600 f", "", "f", false},
		{"touch f", "", "f", false},
		{"mkdir -p d", "", "d", false},
		{"sed -i s/a/b/ f", "f", "f", true},
		{"sort -o out in", "in", "out", true},
		{"mv a b", "a", "b a b/a", false},
		{"git -C sub show HEAD:x", "sub/HEAD:x sub/x x", "", false},
		{"curl -d @f -o out https://h/x", "f", "out", false},
	} {
		c, err := ParseCommand(tc.cmd)
		if err != nil {
			t.Fatalf("%q: %v", tc.cmd, err)
		}
		s := c.Subs[0]
		render := func(ws []word) string {
			var out []string
			for _, w := range ws {
				out = append(out, renderTokens(w.toks))
			}
			return strings.Join(out, " ")
		}
		if got := render(s.reads); got != tc.reads {
			t.Errorf("%q reads %q, want %q", tc.cmd, got, tc.reads)
		}
		if got := render(s.writes); got != tc.writes {
			t.Errorf("%q writes %q, want %q", tc.cmd, got, tc.writes)
		}
		if (s.danger != "") != tc.danger {
			t.Errorf("%q danger %q, want %v", tc.cmd, s.danger, tc.danger)
		}
	}
}

// TestPathWorkIsBounded: a line cannot make the evaluator read directories without
// end; past the budget its paths are unknown, which a Read deny rule turns into ask.
func TestPathWorkIsBounded(t *testing.T) {
	e := effectsEnv(t)
	for i := 0; i < 200; i++ {
		if err := os.WriteFile(filepath.Join(e.project, "src", fmt.Sprintf("f%03d.go", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	line := "cat" + strings.Repeat(" src/*", 150) // 30000 entries
	ev := e.evaluator(t, ModeDefault, allow("Bash(cat *)"), deny("Read(.env)"))
	if d := ev.Evaluate(Request{Tool: "Bash", Input: input(t, "command", line), Cwd: e.project}); d.Behavior != Ask {
		t.Errorf("past the budget the paths are unknown: want ask, got %s: %s", d.Behavior, d.Reason)
	}
	if d := ev.Evaluate(Request{Tool: "Bash", Input: input(t, "command", "cat src/*"), Cwd: e.project}); d.Behavior != Allow {
		t.Errorf("within the budget: want allow, got %s: %s", d.Behavior, d.Reason)
	}
}

// TestEffectsConcurrent: the evaluator is immutable; evaluating the command table's
// commands at once gives what evaluating them one by one gives (run with -race).
func TestEffectsConcurrent(t *testing.T) {
	e := effectsEnv(t)
	ev := e.evaluator(t, ModeDefault, allow(everydayRules...), allow("Bash(cp *)", "Bash(ln *)"), deny("Read(.env)", "Edit(/a.txt)"))
	// cp a.txt c first: an evaluation must not change how a later one reads (cp -s).
	cmds := append(append([]string{"cp a.txt c", "cp -s a.txt b", "ln -s a.txt d", "sed -i s/a/b/ a.txt"}, everyday...), effectSeeds...)
	want := make([]Behavior, len(cmds))
	for i, c := range cmds {
		want[i] = ev.Evaluate(Request{Tool: "Bash", Input: input(t, "command", c), Cwd: e.project}).Behavior
	}
	errs := make(chan string, len(cmds)*4)
	done := make(chan bool)
	for g := 0; g < 4; g++ {
		go func(g int) {
			for k := range cmds {
				i := (k + g*len(cmds)/4) % len(cmds)
				if got := ev.Evaluate(Request{Tool: "Bash", Input: input(t, "command", cmds[i]), Cwd: e.project}).Behavior; got != want[i] {
					errs <- fmt.Sprintf("%q: %s at once, %s alone", cmds[i], got, want[i])
				}
			}
			done <- true
		}(g)
	}
	for g := 0; g < 4; g++ {
		<-done
	}
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

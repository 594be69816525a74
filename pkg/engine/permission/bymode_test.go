package permission

import (
	"testing"
)

// TestByMode: only the mode's own answer on a fully analysed call is ByMode; a rule,
// an analysis limit or a protected path clears it, and a Bash line is ByMode only
// when every part with its behaviour is.
func TestByMode(t *testing.T) {
	e := newEnv(t)
	write := func(p string) Request { return Request{Tool: "Write", Input: input(t, "file_path", p, "content", "x")} }
	read := func(p string) Request { return Request{Tool: "Read", Input: input(t, "file_path", p)} }
	tests := []struct {
		name   string
		mode   Mode
		layers []Layer
		req    Request
		want   Behavior
		byMode bool
	}{
		{"mode asks for a command", ModeDefault, nil, bashReq(t, "touch a"), Ask, true},
		{"mode asks for every part", ModeDefault, nil, bashReq(t, "make && touch a"), Ask, true},
		{"mode asks for a dynamic argument", ModeDefault, nil, bashReq(t, "echo $X"), Ask, true},
		{"mode asks for a write in the project", ModeDefault, nil, write(e.project + "/src/a.go"), Ask, true},
		{"mode asks for a read outside", ModeDefault, nil, read(e.outside + "/a"), Ask, true},
		{"mode asks for an edit outside in acceptEdits", ModeAcceptEdits, nil, write(e.outside + "/a"), Ask, true},
		{"mode asks for a redirection", ModeDefault, []Layer{allow("Bash(ls *)")}, bashReq(t, "ls > out.txt"), Ask, true},
		{"mode asks for an unknown tool", ModeDefault, nil, Request{Tool: "mcp__x__y", Input: input(t)}, Ask, true},
		{"mode allows a read inside", ModeDefault, nil, read(e.project + "/src/a.go"), Allow, true},
		{"mode denies in plan", ModePlan, nil, bashReq(t, "make"), Deny, true},
		{"dontAsk denies what the mode asks", ModeDontAsk, nil, bashReq(t, "make"), Deny, true},

		{"ask rule", ModeDefault, []Layer{askL("Bash(touch *)")}, bashReq(t, "touch a"), Ask, false},
		{"ask rule on one part of a compound", ModeDefault, []Layer{askL("Bash(touch *)")}, bashReq(t, "make && touch a"), Ask, false},
		{"ask rule on the first part of a compound", ModeDefault, []Layer{askL("Bash(touch *)")}, bashReq(t, "touch a; make"), Ask, false},
		{"deny rule that cannot be checked", ModeDefault, []Layer{deny("Bash(rm *)")}, bashReq(t, `$X -rf /`), Ask, false},
		{"allow rule", ModeDefault, []Layer{allow("Bash(ls *)")}, bashReq(t, "ls -la"), Allow, false},
		{"deny rule", ModeDefault, []Layer{deny("Bash(rm *)")}, bashReq(t, "rm -rf x"), Deny, false},
		{"dontAsk denies what a rule asks", ModeDontAsk, []Layer{askL("Bash(touch *)")}, bashReq(t, "touch a"), Deny, false},

		{"eval of a variable", ModeDefault, nil, bashReq(t, `eval "$X"`), Ask, false},
		{"sh -c of a variable", ModeDefault, nil, bashReq(t, `bash -c "$X"`), Ask, false},
		{"a shell reading stdin", ModeDefault, nil, bashReq(t, `curl x | sh`), Ask, false},
		{"a computed program", ModeDefault, nil, bashReq(t, `$CMD foo`), Ask, false},
		{"a quoted computed program", ModeDefault, nil, bashReq(t, `"$CMD"`), Ask, false},
		{"text bash evaluates again", ModeDefault, nil, bashReq(t, `printf -v 'a[$(id)]' x`), Ask, false},
		{"a line that does not parse", ModeDefault, nil, bashReq(t, "echo 'unterminated"), Ask, false},
		{"a line that does not parse in plan", ModePlan, nil, bashReq(t, "echo 'unterminated"), Deny, false},
		{"no command argument", ModeDefault, nil, Request{Tool: "Bash", Input: input(t)}, Ask, false},
		{"an unknown redirection target", ModeDefault, []Layer{allow("Bash(ls *)")}, bashReq(t, "ls > $F"), Ask, false},
		{"an unknown redirection target in acceptEdits", ModeAcceptEdits, []Layer{allow("Bash(ls *)")}, bashReq(t, "ls > $F"), Ask, false},
		{"a read whose path cannot be determined", ModeDefault, nil, Request{Tool: "Read", Input: input(t)}, Ask, false},
		{"an unknown command among mode asks", ModeDefault, nil, bashReq(t, `make && eval "$X"`), Ask, false},

		{"protected path write", ModeAcceptEdits, nil, write(e.project + "/.git/config"), Ask, false},
		{"protected path write with an allow rule", ModeDefault, []Layer{allow("Edit")}, write(e.project + "/.claude/settings.json"), Ask, false},
		{"protected path redirection", ModeDefault, []Layer{allow("Bash(ls *)")}, bashReq(t, "ls > .git/hooks/pre-commit"), Ask, false},
		{"protected path redirection after a mode ask", ModeDefault, nil, bashReq(t, "make > .git/hooks/pre-commit"), Ask, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.req.Cwd = e.project
			d := e.evaluator(t, tc.mode, tc.layers...).Evaluate(tc.req)
			if d.Behavior != tc.want || d.ByMode != tc.byMode {
				t.Fatalf("got %s ByMode=%v (%s), want %s ByMode=%v", d.Behavior, d.ByMode, d.Reason, tc.want, tc.byMode)
			}
			if d.ByMode && d.Rule != nil {
				t.Fatalf("ByMode with rule %s", d.Rule.describe())
			}
			for _, p := range d.Parts {
				if p.ByMode && p.Rule != nil {
					t.Fatalf("part %q ByMode with rule %s", p.Subject, p.Rule.describe())
				}
			}
		})
	}
}

package permission

import "testing"

// A tool-wide rule names a tool, not the files commands touch: with `Read`, `Write` and
// `Edit` denied (as the ACP adapters pass them, replacing those tools with their own),
// the tools are refused but a Bash command reading or writing a file is decided as if
// the rules were not there: asked in default mode, run when allowed. Rules with a
// specifier still hold against every operand form.
func TestToolWideRulesDoNotGovernCommandOperands(t *testing.T) {
	e := newEnv(t)
	fileReq := func(tool, path string) func(*testing.T) Request {
		return func(t *testing.T) Request {
			return Request{Tool: tool, Input: input(t, "file_path", e.project+"/"+path, "content", "x")}
		}
	}
	for _, tc := range []struct {
		name  string
		mode  Mode
		rules []Layer
		req   func(*testing.T) Request
		want  Behavior
	}{
		{"redirect write, tool-wide Write deny", ModeDefault, []Layer{deny("Read"), deny("Write"), deny("Edit")},
			func(t *testing.T) Request { return bashReq(t, "echo x > ran.txt") }, Ask},
		// Bash allowed as a whole runs a redirection inside the project, as Claude Code
		// does (--allowedTools Bash); outside it the mode still asks.
		{"redirect write, allowed Bash", ModeDefault, []Layer{deny("Read"), deny("Write"), deny("Edit"), allow("Bash")},
			func(t *testing.T) Request { return bashReq(t, "echo x > ran.txt") }, Allow},
		{"redirect write outside, allowed Bash", ModeDefault, []Layer{allow("Bash")},
			func(t *testing.T) Request { return bashReq(t, "echo x > "+e.outside+"/x.txt") }, Ask},
		{"redirect write into a denied path, allowed Bash", ModeDefault, []Layer{allow("Bash"), deny("Edit(./src/**)")},
			func(t *testing.T) Request { return bashReq(t, "echo x > src/a.go") }, Deny},
		{"cp, tool-wide Edit deny, bypass", ModeBypassPermissions, []Layer{deny("Edit")},
			func(t *testing.T) Request { return bashReq(t, "cp a.txt b.txt") }, Allow},
		{"cat, tool-wide Read deny", ModeDefault, []Layer{deny("Read"), allow("Bash(cat *)")},
			func(t *testing.T) Request { return bashReq(t, "cat notes.txt") }, Allow},
		{"input redirect, tool-wide Read ask", ModeDefault, []Layer{askL("Read"), allow("Bash(wc *)")},
			func(t *testing.T) Request { return bashReq(t, "wc -l < notes.txt") }, Allow},
		{"tee in acceptEdits, tool-wide Write deny", ModeAcceptEdits, []Layer{deny("Write"), allow("Bash(tee *)", "Bash(echo *)")},
			func(t *testing.T) Request { return bashReq(t, "echo hi | tee out.txt") }, Allow},
		// The tools themselves stay denied.
		{"Write tool, tool-wide deny", ModeBypassPermissions, []Layer{deny("Write")},
			fileReq("Write", "ran.txt"), Deny},
		{"Read tool, tool-wide deny", ModeBypassPermissions, []Layer{deny("Read")},
			fileReq("Read", "notes.txt"), Deny},
		// Rules with a specifier keep holding against commands.
		{"redirect into a denied Edit path", ModeBypassPermissions, []Layer{deny("Edit(./src/**)")},
			func(t *testing.T) Request { return bashReq(t, "echo x > src/a.go") }, Deny},
		{"cat of a denied Read path", ModeBypassPermissions, []Layer{deny("Read(.env)")},
			func(t *testing.T) Request { return bashReq(t, "cat .env") }, Deny},
		{"specifier and tool-wide together", ModeBypassPermissions, []Layer{deny("Write"), deny("Edit(./src/**)")},
			func(t *testing.T) Request { return bashReq(t, "cp a.txt src/b.go") }, Deny},
		// A protected path still asks.
		{"redirect into .git", ModeAcceptEdits, []Layer{deny("Write"), allow("Bash")},
			func(t *testing.T) Request { return bashReq(t, "echo x > .git/hooks/pre-commit") }, Ask},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := tc.req(t)
			req.Cwd = e.project
			d := e.evaluator(t, tc.mode, tc.rules...).Evaluate(req)
			if d.Behavior != tc.want {
				t.Errorf("%s: %s (%s), want %s", tc.name, d.Behavior, d.Reason, tc.want)
			}
		})
	}
}

// Every directory robota loads definitions from is protected like .claude: a model in
// acceptEdits cannot write itself a skill that grants it tools in later sessions.
func TestDefinitionDirectoriesAreProtected(t *testing.T) {
	e := newEnv(t)
	ev := e.evaluator(t, ModeAcceptEdits)
	for _, rel := range []string{".agents/skills/x/SKILL.md", ".agents/agents/a.md", ".agents/commands/c.md",
		".robota/skills/x/SKILL.md", ".claude/skills/x/SKILL.md", ".claude/agents/a.md"} {
		req := Request{Tool: "Write", Input: input(t, "file_path", e.project+"/"+rel, "content", "x"), Cwd: e.project}
		if d := ev.Evaluate(req); d.Behavior != Ask {
			t.Errorf("acceptEdits Write %s: %s (%s), want ask", rel, d.Behavior, d.Reason)
		}
	}
	req := Request{Tool: "Write", Input: input(t, "file_path", e.project+"/.agents/tasks/t.md", "content", "x"), Cwd: e.project}
	if d := ev.Evaluate(req); d.Behavior != Allow {
		t.Errorf("acceptEdits Write .agents/tasks/t.md: %s (%s), want allow", d.Behavior, d.Reason)
	}
}

package permission

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestParseMode(t *testing.T) {
	tests := []struct {
		in   string
		want Mode
		err  bool
	}{
		{"", ModeDefault, false},
		{"default", ModeDefault, false},
		{"acceptEdits", ModeAcceptEdits, false},
		{"plan", ModePlan, false},
		{"bypassPermissions", ModeBypassPermissions, false},
		{"dontAsk", ModeDontAsk, false},
		{"safe", ModePlan, false},
		{"moderate", ModeDefault, false},
		{"full", ModeAcceptEdits, false},
		{"yolo", "", true},
		{"Plan", "", true},
	}
	for _, tc := range tests {
		got, err := ParseMode(tc.in)
		if tc.err != (err != nil) || got != tc.want {
			t.Errorf("ParseMode(%q) = %q, %v", tc.in, got, err)
		}
		if tc.err && !errors.Is(err, ErrUnknownMode) {
			t.Errorf("ParseMode(%q): want ErrUnknownMode, got %v", tc.in, err)
		}
	}
}

// TestModeMatrix checks every mode against one tool of every class, without rules.
func TestModeMatrix(t *testing.T) {
	e := newEnv(t)
	calls := map[Class]Request{
		ClassRead:    {Tool: "Read", Input: input(t, "file_path", e.project+"/a.go")},
		ClassModify:  {Tool: "Edit", Input: input(t, "file_path", e.project+"/a.go")},
		ClassExecute: bashReq(t, "make"),
		ClassNetwork: {Tool: "WebFetch", Input: input(t, "url", "https://example.com")},
		ClassUnknown: {Tool: "mcp__srv__tool"},
	}
	want := map[Mode]map[Class]Behavior{
		ModePlan:              {ClassRead: Allow, ClassModify: Deny, ClassExecute: Deny, ClassNetwork: Ask, ClassUnknown: Deny},
		ModeDefault:           {ClassRead: Allow, ClassModify: Ask, ClassExecute: Ask, ClassNetwork: Ask, ClassUnknown: Ask},
		ModeAcceptEdits:       {ClassRead: Allow, ClassModify: Allow, ClassExecute: Ask, ClassNetwork: Ask, ClassUnknown: Ask},
		ModeBypassPermissions: {ClassRead: Allow, ClassModify: Allow, ClassExecute: Allow, ClassNetwork: Allow, ClassUnknown: Allow},
		ModeDontAsk:           {ClassRead: Allow, ClassModify: Deny, ClassExecute: Deny, ClassNetwork: Deny, ClassUnknown: Deny},
	}
	for mode, row := range want {
		ev := e.evaluator(t, mode)
		for class, b := range row {
			d := ev.Evaluate(calls[class])
			if d.Behavior != b {
				t.Errorf("%s %s: got %s (%s), want %s", mode, class, d.Behavior, d.Reason, b)
			}
			if d.Rule != nil || !strings.Contains(d.Reason, "mode "+string(mode)) || d.Mode != mode {
				t.Errorf("%s %s: the reason must name the mode, got %q", mode, class, d.Reason)
			}
		}
	}
}

func TestRulesAndModes(t *testing.T) {
	e := newEnv(t)
	extra := e.outside
	tests := []struct {
		name   string
		mode   Mode
		layers []Layer
		req    Request
		want   Behavior
		reason string
	}{
		{"ask rule holds in bypass", ModeBypassPermissions, []Layer{askL("Bash(git push *)")}, bashReq(t, "git push origin main"), Ask, `ask rule "Bash(git push *)"`},
		{"ask beats allow", ModeDefault, []Layer{allow("Bash"), askL("Bash(git push *)")}, bashReq(t, "git push"), Ask, "ask rule"},
		{"deny beats ask", ModeDefault, []Layer{askL("Bash"), deny("Bash(git push *)")}, bashReq(t, "git push"), Deny, "deny rule"},
		{"tool-wide Bash allow", ModeDefault, []Layer{allow("Bash")}, bashReq(t, "make && make test"), Allow, `"Bash"`},
		{"Bash(*) is tool-wide", ModeDefault, []Layer{allow("Bash(*)")}, bashReq(t, "make"), Allow, `"Bash"`},
		{"unparsable never auto-allowed", ModeBypassPermissions, []Layer{allow("Bash")}, bashReq(t, "echo 'x"), Ask, "cannot be analysed"},
		{"unparsable denied in plan", ModePlan, nil, bashReq(t, "echo 'x"), Deny, "mode plan"},
		{"missing command asks", ModeBypassPermissions, nil, Request{Tool: "Bash"}, Ask, "cannot be analysed"},
		{"dontAsk denies the unallowed", ModeDontAsk, []Layer{allow("Bash(make *)")}, bashReq(t, "make && curl x"), Deny, "mode dontAsk"},
		{"dontAsk allows the allowed", ModeDontAsk, []Layer{allow("Bash(make *)")}, bashReq(t, "make && make test"), Allow, `"Bash(make *)"`},
		{"dontAsk turns ask rules into deny", ModeDontAsk, []Layer{askL("Read")}, Request{Tool: "Read", Input: input(t, "file_path", e.project+"/a")}, Deny, "ask rule"},
		{"read outside working dirs asks", ModeDefault, nil, Request{Tool: "Read", Input: input(t, "file_path", "/etc/hosts")}, Ask, "outside the working directories"},
		{"read outside allowed by rule", ModeDefault, []Layer{allow("Read(//etc/**)")}, Request{Tool: "Read", Input: input(t, "file_path", "/etc/hosts")}, Allow, "Read(//etc/**)"},
		{"acceptEdits in additional dir", ModeAcceptEdits, nil, Request{Tool: "Write", Input: input(t, "file_path", extra+"/x")}, Allow, "mode acceptEdits"},
		{"acceptEdits asks for .git", ModeAcceptEdits, nil, Request{Tool: "Write", Input: input(t, "file_path", e.project+"/.git/hooks/pre-commit")}, Ask, "protected"},
		{"acceptEdits asks for .claude settings", ModeAcceptEdits, []Layer{allow("Edit")}, Request{Tool: "Edit", Input: input(t, "file_path", e.project+"/.claude/settings.json")}, Ask, "protected"},
		{"bypass writes .git", ModeBypassPermissions, nil, Request{Tool: "Write", Input: input(t, "file_path", e.project+"/.git/config")}, Allow, "bypassPermissions"},
		{"acceptEdits redirect inside project", ModeAcceptEdits, []Layer{allow("Bash(npm test *)")}, bashReq(t, "npm test > log.txt"), Allow, "mode acceptEdits"},
		{"default redirect asks", ModeDefault, []Layer{allow("Bash(npm test *)")}, bashReq(t, "npm test > log.txt"), Ask, "write to log.txt"},
		{"redirect allowed by Edit rule", ModeDefault, []Layer{allow("Bash(npm test *)", "Edit(/logs/**)")}, bashReq(t, "npm test > logs/out.txt"), Allow, "Edit(/logs/**)"},
		{"redirect denied by Edit rule", ModeBypassPermissions, []Layer{deny("Edit(*.lock)")}, bashReq(t, "echo > yarn.lock"), Deny, "Edit(*.lock)"},
		{"WebFetch domain allow", ModeDefault, []Layer{allow("WebFetch(domain:example.com)")}, Request{Tool: "WebFetch", Input: input(t, "url", "https://example.com/a")}, Allow, "domain:example.com"},
		{"WebFetch other domain asks", ModeDefault, []Layer{allow("WebFetch(domain:example.com)")}, Request{Tool: "WebFetch", Input: input(t, "url", "https://example.org/a")}, Ask, "mode default"},
		{"Agent name allow", ModeDefault, []Layer{allow("Agent(Explore)")}, Request{Tool: "Agent", Input: input(t, "subagent_type", "Explore")}, Allow, "Agent(Explore)"},
		{"TaskOutput reads in plan mode", ModePlan, nil, Request{Tool: "TaskOutput", Input: input(t, "task_id", "b1")}, Allow, "mode plan"},
		{"TaskStop asks in default mode", ModeDefault, nil, Request{Tool: "TaskStop", Input: input(t, "task_id", "b1")}, Ask, "mode default"},
		{"Task name allow covers Agent", ModeDefault, []Layer{allow("Task(Explore)")}, Request{Tool: "Agent", Input: input(t, "subagent_type", "Explore")}, Allow, "Task(Explore)"},
		{"Task deny covers Agent", ModeBypassPermissions, []Layer{deny("Task")}, Request{Tool: "Agent", Input: input(t, "subagent_type", "Explore")}, Deny, "Task"},
		{"Task name deny covers Agent", ModeBypassPermissions, []Layer{deny("Task(Explore)")}, Request{Tool: "Agent", Input: input(t, "subagent_type", "Explore")}, Deny, "Task(Explore)"},
		{"Task ask covers Agent", ModeBypassPermissions, []Layer{askL("Task(Plan)")}, Request{Tool: "Agent", Input: input(t, "subagent_type", "Plan")}, Ask, "Task(Plan)"},
		{"Agent allow needs every job", ModeDefault, []Layer{allow("Agent(Explore)")}, Request{Tool: "Agent", Input: json.RawMessage(`{"jobs":[{"subagent_type":"Explore"},{"subagent_type":"Plan"}]}`)}, Allow, "mode default"},
		{"Agent allow covers all jobs", ModeDefault, []Layer{allow("Agent(Explore)")}, Request{Tool: "Agent", Input: json.RawMessage(`{"jobs":[{"subagent_type":"Explore"},{"subagent_type":"Explore"}]}`)}, Allow, "Agent(Explore)"},
		{"Agent ask on one job", ModeBypassPermissions, []Layer{askL("Agent(Plan)")}, Request{Tool: "Agent", Input: json.RawMessage(`{"jobs":[{"subagent_type":"Explore"},{"subagent_type":"Plan"}]}`)}, Ask, "Agent(Plan)"},
		{"Agent deny covers Task", ModeBypassPermissions, []Layer{deny("Agent(Explore)")}, Request{Tool: "Task", Input: input(t, "subagent_type", "Explore")}, Deny, "Agent(Explore)"},
		{"mcp server allow", ModeDefault, []Layer{allow("mcp__github")}, Request{Tool: "mcp__github__create_issue"}, Allow, "mcp__github"},
		{"mcp wildcard allow", ModeDefault, []Layer{allow("mcp__github__*")}, Request{Tool: "mcp__github__create_issue"}, Allow, "mcp__github__*"},
		{"specifier deny on opaque tool asks", ModeBypassPermissions, []Layer{deny("mcp__github__create_issue(repo)")}, Request{Tool: "mcp__github__create_issue"}, Ask, "cannot be checked"},
		{"specifier allow on opaque tool does not allow", ModeDefault, []Layer{allow("mcp__github__create_issue(repo)")}, Request{Tool: "mcp__github__create_issue"}, Ask, "mode default"},
		{"Read deny without a path asks", ModeBypassPermissions, []Layer{deny("Read(~/.ssh/**)")}, Request{Tool: "Read"}, Ask, "cannot be checked"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rules, err := Rules(tc.layers...)
			if err != nil {
				t.Fatal(err)
			}
			ev := New(Config{Mode: tc.mode, Rules: rules, ProjectRoot: e.project, Home: e.home, AdditionalDirs: []string{extra}})
			d := ev.Evaluate(tc.req)
			if d.Behavior != tc.want || !strings.Contains(d.Reason, tc.reason) {
				t.Fatalf("got %s (%s), want %s mentioning %q", d.Behavior, d.Reason, tc.want, tc.reason)
			}
		})
	}
}

func TestDeniedPath(t *testing.T) {
	e := newEnv(t)
	ev := e.evaluator(t, ModeDefault, deny("Read(~/.ssh/**)", "Read(*.env)"), allow("Read"))
	for _, tc := range []struct {
		p      string
		denied bool
	}{
		{e.home + "/.ssh/id_rsa", true},
		{e.project + "/sub/prod.env", true},
		{e.project + "/sub/main.go", false},
		{"", true},
	} {
		r, denied := ev.DeniedPath("Grep", tc.p, e.project)
		if denied != tc.denied || (denied && r == nil) {
			t.Errorf("DeniedPath(%q) = %v, %v", tc.p, r, denied)
		}
	}
}

func TestInputFromMap(t *testing.T) {
	e := newEnv(t)
	ev := e.evaluator(t, ModeDefault, allow("Bash(npm test *)"))
	in, err := InputFromMap(map[string]any{"command": "npm test", "timeout": 1000})
	if err != nil {
		t.Fatal(err)
	}
	if d := ev.Evaluate(Request{Tool: "Bash", Input: in}); d.Behavior != Allow {
		t.Fatalf("%s: %s", d.Behavior, d.Reason)
	}
	if _, err := InputFromMap(map[string]any{"f": func() {}}); err == nil {
		t.Fatal("an unencodable input must fail")
	}
}

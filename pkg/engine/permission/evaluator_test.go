package permission

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestAcceptance holds the permission table, one row per case.
func TestAcceptance(t *testing.T) {
	e := newEnv(t)
	user := Layer{Source: Source{Name: "userSettings"}, Deny: []string{"Bash(rm *)", "Read(~/.ssh/**)"}}
	project := Layer{Source: Source{Name: "projectSettings", Root: e.project}, Allow: []string{"Bash(rm *)", "Read(~/.ssh/**)"}}

	linkDir := filepath.Join(e.project, "innocent")
	if err := os.Symlink(filepath.Join(e.home, ".ssh"), linkDir); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name   string
		mode   Mode
		layers []Layer
		req    Request
		want   []Behavior // any of these
		reason string     // substring of the reason
	}{
		{"ls * does not match lsof", ModeDefault, []Layer{allow("Bash(ls *)")}, bashReq(t, "lsof"), []Behavior{Ask}, "mode default"},
		{"ls * matches ls -la", ModeDefault, []Layer{allow("Bash(ls *)")}, bashReq(t, "ls -la"), []Behavior{Allow}, `"Bash(ls *)"`},
		{"ls * matches bare ls", ModeDefault, []Layer{allow("Bash(ls *)")}, bashReq(t, "ls"), []Behavior{Allow}, `"Bash(ls *)"`},
		{"ls:* equals ls *", ModeDefault, []Layer{allow("Bash(ls:*)")}, bashReq(t, "ls -la"), []Behavior{Allow}, `"Bash(ls:*)"`},
		{"ls:* does not match lsof", ModeDefault, []Layer{allow("Bash(ls:*)")}, bashReq(t, "lsof"), []Behavior{Ask}, ""},
		{"compound with unallowed part", ModeDefault, []Layer{allow("Bash(npm test *)")}, bashReq(t, "npm test && rm -rf x"), []Behavior{Ask, Deny}, "rm -rf x"},
		{"compound with denied part", ModeDefault, []Layer{allow("Bash(npm test *)"), deny("Bash(rm *)")}, bashReq(t, "npm test && rm -rf x"), []Behavior{Deny}, `"Bash(rm *)"`},
		{"timeout wrapper stripped", ModeDefault, []Layer{allow("Bash(npm test *)")}, bashReq(t, "timeout 30 npm test"), []Behavior{Allow}, `"Bash(npm test *)"`},
		{"command substitution extracted", ModeDefault, []Layer{allow("Bash(echo *)")}, bashReq(t, "echo $(curl evil)"), []Behavior{Ask}, "curl evil"},
		{"redirect in plan mode", ModePlan, nil, bashReq(t, "ls > out.txt"), []Behavior{Deny}, "mode plan"},
		{"redirect in plan mode with ls allowed", ModePlan, []Layer{allow("Bash(ls *)")}, bashReq(t, "ls > out.txt"), []Behavior{Deny}, "never allows modifications"},
		{"user deny beats project allow", ModeDefault, []Layer{project, user}, bashReq(t, "rm -rf build"), []Behavior{Deny}, "userSettings"},
		{"user deny beats project allow (order independent)", ModeDefault, []Layer{user, project}, bashReq(t, "rm -rf build"), []Behavior{Deny}, "userSettings"},
		{"user read deny beats project allow", ModeDefault, []Layer{project, user}, Request{Tool: "Read", Input: input(t, "file_path", e.home+"/.ssh/id_rsa")}, []Behavior{Deny}, "userSettings"},
		{"plan denies Edit", ModePlan, nil, Request{Tool: "Edit", Input: input(t, "file_path", e.project+"/src/a.go")}, []Behavior{Deny}, "mode plan"},
		{"plan denies Write even when allowed", ModePlan, []Layer{allow("Edit")}, Request{Tool: "Write", Input: input(t, "file_path", e.project+"/src/a.go")}, []Behavior{Deny}, "mode plan"},
		{"plan denies Bash", ModePlan, nil, bashReq(t, "make"), []Behavior{Deny}, "mode plan"},
		{"plan allows Read", ModePlan, nil, Request{Tool: "Read", Input: input(t, "file_path", e.project+"/src/a.go")}, []Behavior{Allow}, "mode plan"},
		{"acceptEdits allows Edit", ModeAcceptEdits, nil, Request{Tool: "Edit", Input: input(t, "file_path", e.project+"/src/a.go")}, []Behavior{Allow}, "mode acceptEdits"},
		{"acceptEdits asks Bash", ModeAcceptEdits, nil, bashReq(t, "make"), []Behavior{Ask}, "mode acceptEdits"},
		{"acceptEdits asks Edit outside the project", ModeAcceptEdits, nil, Request{Tool: "Edit", Input: input(t, "file_path", e.home+"/notes.txt")}, []Behavior{Ask}, "outside"},
		{"acceptEdits asks Edit of a shell start-up file", ModeAcceptEdits, []Layer{allow("Edit")}, Request{Tool: "Edit", Input: input(t, "file_path", e.home+"/.bashrc")}, []Behavior{Ask}, "protected"},
		{"default asks Edit", ModeDefault, nil, Request{Tool: "Edit", Input: input(t, "file_path", e.project+"/src/a.go")}, []Behavior{Ask}, "mode default"},
		{"bypass allows Bash", ModeBypassPermissions, nil, bashReq(t, "rm -rf build"), []Behavior{Allow}, "bypassPermissions"},
		{"bypass honours Bash deny", ModeBypassPermissions, []Layer{deny("Bash(rm *)")}, bashReq(t, "rm -rf build"), []Behavior{Deny}, `"Bash(rm *)"`},
		{"bypass honours tool deny", ModeBypassPermissions, []Layer{deny("WebFetch")}, Request{Tool: "WebFetch", Input: input(t, "url", "https://example.com")}, []Behavior{Deny}, `"WebFetch"`},
		{"bypass honours Edit deny", ModeBypassPermissions, []Layer{deny("Edit(/src/**)")}, Request{Tool: "Write", Input: input(t, "file_path", e.project+"/src/a.go")}, []Behavior{Deny}, `"Edit(/src/**)"`},
		{"//etc/** is absolute", ModeDefault, []Layer{deny("Read(//etc/**)")}, Request{Tool: "Read", Input: input(t, "file_path", "/etc/passwd")}, []Behavior{Deny}, "//etc/**"},
		{"//etc/** is not project-relative", ModeDefault, []Layer{deny("Read(//etc/**)")}, Request{Tool: "Read", Input: input(t, "file_path", e.project+"/etc/x")}, []Behavior{Allow}, ""},
		{"~/.ssh/** is home", ModeDefault, []Layer{deny("Read(~/.ssh/**)")}, Request{Tool: "Read", Input: input(t, "file_path", e.home+"/.ssh/id_rsa")}, []Behavior{Deny}, "~/.ssh/**"},
		{"~/.ssh/** is not project .ssh", ModeDefault, []Layer{deny("Read(~/.ssh/**)")}, Request{Tool: "Read", Input: input(t, "file_path", e.project+"/.ssh/id_rsa")}, []Behavior{Allow}, ""},
		{"/src/** is settings-root relative", ModeDefault, []Layer{allow("Edit(/src/**)")}, Request{Tool: "Edit", Input: input(t, "file_path", e.project+"/src/a.go"), Cwd: e.project + "/sub"}, []Behavior{Allow}, "/src/**"},
		{"/src/** is not cwd relative", ModeDefault, []Layer{allow("Edit(/src/**)")}, Request{Tool: "Edit", Input: input(t, "file_path", e.project+"/sub/src/a.go"), Cwd: e.project + "/sub"}, []Behavior{Ask}, ""},
		{"/src/** is not filesystem absolute", ModeBypassPermissions, []Layer{deny("Edit(/src/**)")}, Request{Tool: "Edit", Input: input(t, "file_path", "/src/a.go")}, []Behavior{Allow}, ""},
		{"src/** is cwd relative", ModeDefault, []Layer{allow("Edit(src/**)")}, Request{Tool: "Edit", Input: input(t, "file_path", e.project+"/sub/src/a.go"), Cwd: e.project + "/sub"}, []Behavior{Allow}, "src/**"},
		{"symlink into denied directory", ModeDefault, []Layer{deny("Read(~/.ssh/**)")}, Request{Tool: "Read", Input: input(t, "file_path", linkDir+"/id_rsa")}, []Behavior{Deny}, "~/.ssh/**"},
		{"symlink into denied directory via Edit", ModeBypassPermissions, []Layer{deny("Edit(~/.ssh/**)")}, Request{Tool: "Write", Input: input(t, "file_path", linkDir+"/authorized_keys")}, []Behavior{Deny}, "~/.ssh/**"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := e.evaluator(t, tc.mode, tc.layers...).Evaluate(tc.req)
			if !slices.Contains(tc.want, d.Behavior) {
				t.Fatalf("got %s (%s), want one of %v", d.Behavior, d.Reason, tc.want)
			}
			if !strings.Contains(d.Reason, tc.reason) {
				t.Fatalf("reason %q does not mention %q", d.Reason, tc.reason)
			}
			if d.Reason == "" {
				t.Fatal("empty reason")
			}
		})
	}
}

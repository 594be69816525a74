package permission

import (
	"errors"
	"reflect"
	"testing"
)

func TestParseRule(t *testing.T) {
	tests := []struct {
		in      string
		tool    string
		spec    string
		hasSpec bool
		wantErr bool
	}{
		{"Bash", "Bash", "", false, false},
		{"Bash(*)", "Bash", "", false, false},
		{"Bash(ls *)", "Bash", "ls *", true, false},
		{"Bash(npm run test:*)", "Bash", "npm run test:*", true, false},
		{"  Read(~/.ssh/**)  ", "Read", "~/.ssh/**", true, false},
		{`Bash(echo \(hi\))`, "Bash", "echo (hi)", true, false},
		{`Bash(echo \\)`, "Bash", `echo \`, true, false},
		{`Bash(printf \*)`, "Bash", `printf \*`, true, false},
		{"WebFetch(domain:example.com)", "WebFetch", "domain:example.com", true, false},
		{"mcp__github__*", "mcp__github__*", "", false, false},
		{"mcp__github", "mcp__github", "", false, false},
		{"Bash(", "", "", false, true},
		{"Bash()", "", "", false, true},
		{"Bash(ls) x", "", "", false, true},
		{"Bash(ls (x))", "", "", false, true},
		{"(ls)", "", "", false, true},
		{"", "", "", false, true},
		{"Ba sh", "", "", false, true},
		{"Bash*", "", "", false, true},
		{"*", "", "", false, true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			r, err := ParseRule(tc.in)
			if tc.wantErr {
				if !errors.Is(err, ErrInvalidRule) {
					t.Fatalf("want ErrInvalidRule, got %v (%+v)", err, r)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Tool != tc.tool || r.Specifier != tc.spec || r.HasSpecifier != tc.hasSpec {
				t.Fatalf("got %q %q %v", r.Tool, r.Specifier, r.HasSpecifier)
			}
			back, err := ParseRule(r.String())
			if err != nil || back.Tool != r.Tool || back.Specifier != r.Specifier {
				t.Fatalf("round trip via %q: %+v %v", r.String(), back, err)
			}
		})
	}
}

func TestSplitRuleList(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Read", []string{"Read"}},
		{"Read,Edit", []string{"Read", "Edit"}},
		{"Read Edit", []string{"Read", "Edit"}},
		{"Bash(git log *),Read", []string{"Bash(git log *)", "Read"}},
		{"Bash(git log *) Bash(npm test:*)", []string{"Bash(git log *)", "Bash(npm test:*)"}},
		{"Bash(a, b)  ,, Read", []string{"Bash(a, b)", "Read"}},
		{"", nil},
	}
	for _, tc := range tests {
		if got := SplitRuleList(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("SplitRuleList(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestRulesKeepsBrokenDenyRules(t *testing.T) {
	rules, err := Rules(Layer{
		Source: Source{Name: "projectSettings"},
		Allow:  []string{"Bash(", "Read"},
		Ask:    []string{"WebFetch(example.com)"},
		Deny:   []string{"Bash(ls", "(nope)", "Read(a[)"},
	})
	if err == nil {
		t.Fatal("broken rules must be reported")
	}
	var got []string
	for _, r := range rules {
		got = append(got, string(r.Behavior)+":"+r.Tool+":"+boolStr(r.broken != nil))
	}
	want := []string{"deny:Bash:broken", "deny:Read:broken", "ask:WebFetch:broken", "allow:Read:ok"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func boolStr(broken bool) string {
	if broken {
		return "broken"
	}
	return "ok"
}

func TestAppliesTo(t *testing.T) {
	tests := []struct {
		rule     string
		behavior Behavior
		tool     string
		want     bool
	}{
		{"Read", Allow, "Read", true},
		{"Read", Allow, "Grep", true},
		{"Read", Allow, "Glob", true},
		{"Edit", Allow, "Write", true},
		{"Edit", Allow, "NotebookEdit", true},
		{"Write", Allow, "Edit", false},
		{"Grep", Allow, "Read", false},
		{"Task", Allow, "Agent", true},
		{"bash", Allow, "Bash", false},
		{"bash", Deny, "Bash", true},
		{"mcp__srv", Allow, "mcp__srv__tool", true},
		{"mcp__srv", Allow, "mcp__srv2__tool", false},
		{"mcp__srv", Allow, "mcp__srv", true},
		{"mcp__srv__*", Allow, "mcp__srv__tool", true},
		{"mcp__srv__*", Allow, "mcp__srvx__tool", false},
		{"mcp__srv__t", Allow, "mcp__srv__tool", false},
	}
	for _, tc := range tests {
		r, err := NewRule(tc.behavior, tc.rule, Source{})
		if err != nil {
			t.Fatal(err)
		}
		if got := appliesTo(&r, tc.tool); got != tc.want {
			t.Errorf("%s rule %q applies to %q = %v, want %v", tc.behavior, tc.rule, tc.tool, got, tc.want)
		}
	}
}

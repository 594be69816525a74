package permission

import (
	"encoding/json"
	"strings"
	"testing"
)

// SlashCommand rules (Claude Code's): /name exactly, /name:* with any arguments, under
// every name the command answers to; the mode decides by the command's safety class.
func TestSlashCommandRules(t *testing.T) {
	e := newEnv(t)
	call := func(line string, class Class, names ...string) Request {
		b, _ := json.Marshal(map[string]string{"command": line})
		return Request{Tool: SlashCommandTool, Input: b, Class: class, CommandNames: names}
	}
	tests := []struct {
		name   string
		mode   Mode
		layers []Layer
		req    Request
		want   Behavior
		reason string
	}{
		{"read-only command allowed by mode", ModeDefault, nil, call("/memory list", ClassRead), Allow, "mode default"},
		{"writing command asks in default", ModeDefault, nil, call("/memory add project x y", ClassModify), Ask, "mode default"},
		{"writing command allowed in acceptEdits", ModeAcceptEdits, nil, call("/memory add project x y", ClassModify), Allow, "mode acceptEdits"},
		{"writing command denied in plan", ModePlan, nil, call("/memory add project x y", ClassModify), Deny, "mode plan"},
		{"no class is unknown: asks", ModeDefault, nil, call("/memory list", ""), Ask, "mode default"},
		{"prefix allow", ModeDefault, []Layer{allow("SlashCommand(/memory:*)")}, call("/memory add project x y", ClassModify), Allow, "SlashCommand(/memory:*)"},
		{"space-star prefix allow", ModeDefault, []Layer{allow("SlashCommand(/memory *)")}, call("/memory add project x y", ClassModify), Allow, "SlashCommand(/memory *)"},
		{"prefix allow covers no arguments", ModeDefault, []Layer{allow("SlashCommand(/deploy:*)")}, call("/deploy", ClassModify), Allow, "SlashCommand(/deploy:*)"},
		{"exact allow without arguments", ModeDefault, []Layer{allow("SlashCommand(/deploy)")}, call("/deploy", ClassModify), Allow, "SlashCommand(/deploy)"},
		{"exact allow does not cover arguments", ModeDefault, []Layer{allow("SlashCommand(/deploy)")}, call("/deploy prod", ClassModify), Ask, "mode default"},
		{"exact allow with arguments", ModeDefault, []Layer{allow("SlashCommand(/deploy staging)")}, call("/deploy   staging", ClassModify), Allow, "SlashCommand(/deploy staging)"},
		{"argument prefix", ModeBypassPermissions, []Layer{deny("SlashCommand(/memory add:*)")}, call("/memory  add project x", ClassModify), Deny, "/memory add:*"},
		{"argument prefix is whole words", ModeBypassPermissions, []Layer{deny("SlashCommand(/memory add:*)")}, call("/memory addendum", ClassModify), Allow, "bypassPermissions"},
		{"argument prefix alone", ModeBypassPermissions, []Layer{deny("SlashCommand(/memory add:*)")}, call("/memory add", ClassModify), Deny, "/memory add:*"},
		{"prefix is the whole name", ModeDefault, []Layer{allow("SlashCommand(/mem:*)")}, call("/memory add a b c", ClassModify), Ask, "mode default"},
		{"old colon syntax", ModeDefault, []Layer{allow("SlashCommand:/memory:*")}, call("/memory add a b c", ClassModify), Allow, "SlashCommand(/memory:*)"},
		{"tool-wide deny", ModeBypassPermissions, []Layer{deny("SlashCommand")}, call("/memory list", ClassRead), Deny, `"SlashCommand"`},
		{"deny in other capitalisation", ModeBypassPermissions, []Layer{deny("SlashCommand(/Deploy:*)")}, call("/deploy prod", ClassRead), Deny, "SlashCommand(/Deploy:*)"},
		{"deny of the qualified name holds for the bare one", ModeBypassPermissions, []Layer{deny("SlashCommand(/ops:deploy:*)")}, call("/deploy prod", ClassRead, "ops:deploy"), Deny, "ops:deploy"},
		{"deny of the bare name holds for the qualified one", ModeBypassPermissions, []Layer{deny("SlashCommand(/deploy:*)")}, call("/ops:deploy prod", ClassRead, "deploy"), Deny, "/deploy:*"},
		{"ask rule", ModeBypassPermissions, []Layer{askL("SlashCommand(/memory:*)")}, call("/memory list", ClassRead), Ask, "SlashCommand(/memory:*)"},
		{"deny beats allow", ModeDefault, []Layer{allow("SlashCommand"), deny("SlashCommand(/memory:*)")}, call("/memory list", ClassRead), Deny, "deny rule"},
		{"unreadable input asks under a deny", ModeBypassPermissions, []Layer{deny("SlashCommand(/memory:*)")}, Request{Tool: SlashCommandTool, Input: json.RawMessage(`{"command":"memory"}`), Class: ClassRead}, Ask, "cannot be checked"},
		{"dontAsk denies a writing command", ModeDontAsk, nil, call("/memory add a b c", ClassModify), Deny, "mode dontAsk"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := e.evaluator(t, tc.mode, tc.layers...).Evaluate(tc.req)
			if d.Behavior != tc.want || !strings.Contains(d.Reason, tc.reason) {
				t.Fatalf("got %s (%s), want %s mentioning %q", d.Behavior, d.Reason, tc.want, tc.reason)
			}
		})
	}
}

func TestSlashCommandRuleParsing(t *testing.T) {
	for _, tc := range []struct {
		rule string
		ok   bool
	}{
		{"SlashCommand(/memory)", true}, {"SlashCommand(memory:*)", true}, {"SlashCommand(/frontend:component:*)", true},
		{"SlashCommand:/commit", true}, {"SlashCommand(/)", false}, {"SlashCommand(/a b:*)", true}, {"SlashCommand(/*)", false},
		{"SlashCommand:", false},
	} {
		_, err := NewRule(Allow, tc.rule, Source{})
		if (err == nil) != tc.ok {
			t.Errorf("%s: err %v, want ok=%v", tc.rule, err, tc.ok)
		}
	}
}

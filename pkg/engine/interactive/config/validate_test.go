package config

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestWrongTypesNameFileAndKeyPath(t *testing.T) {
	tests := []struct {
		name, file, content, want string
		sentinel                  error
	}{
		{"profile timeout", ".claude/settings.json", `{"providers":{"work":{"type":"openai","timeout":"30s"}}}`,
			".claude/settings.json: providers.work.timeout: want number, got string", ErrType},
		{"negative timeout", ".claude/settings.json", `{"providers":{"work":{"type":"openai","timeout":-1}}}`,
			".claude/settings.json: providers.work.timeout: want a positive number of milliseconds, got -1", ErrValue},
		{"allow not a list", "~/.claude/settings.json", `{"permissions":{"allow":"Read"}}`,
			"~/.claude/settings.json: permissions.allow: want array, got string", ErrType},
		{"rule not a string", ".robota/settings.json", `{"permissions":{"deny":["Read",3]}}`,
			".robota/settings.json: permissions.deny[1]: want string, got number", ErrType},
		{"empty rule", ".robota/settings.json", `{"permissions":{"deny":["  "]}}`,
			".robota/settings.json: permissions.deny[0]: empty permission rule", ErrValue},
		{"mode", ".robota/settings.local.json", `{"permissions":{"defaultMode":"yolo"}}`,
			`.robota/settings.local.json: permissions.defaultMode: want one of default, acceptEdits, plan, bypassPermissions, dontAsk, got "yolo"`, ErrValue},
		{"language", ".robota/settings.json", `{"language":["en"]}`,
			".robota/settings.json: language: want string, got array", ErrType},
		{"null", ".robota/settings.json", `{"currentProvider":null}`,
			".robota/settings.json: currentProvider: want string, got null", ErrType},
		{"options", ".robota/settings.json", `{"providers":{"a":{"type":"x","options":[1]}}}`,
			".robota/settings.json: providers.a.options: want object, got array", ErrType},
		{"odd profile name", ".robota/settings.json", `{"providers":{"a.b":{"type":1}}}`,
			`.robota/settings.json: providers["a.b"].type: want string, got number`, ErrType},
		{"hook timeout", ".claude/settings.json", `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"x","timeout":"5"}]}]}}`,
			".claude/settings.json: hooks.PreToolUse[0].hooks[0].timeout: want number, got string", ErrType},
		{"hook type", ".claude/settings.json", `{"hooks":{"Stop":[{"hooks":[{"type":"shell","command":"x"}]}]}}`,
			`.claude/settings.json: hooks.Stop[0].hooks[0].type: want one of command, http, prompt, agent, got "shell"`, ErrValue},
		{"hook without command", ".claude/settings.json", `{"hooks":{"Stop":[{"hooks":[{"type":"command"}]}]}}`,
			`.claude/settings.json: hooks.Stop[0].hooks[0]: hook of type "command" needs a non-empty "command"`, ErrValue},
		{"group without hooks", ".claude/settings.json", `{"hooks":{"Stop":[{"matcher":"*"}]}}`,
			`.claude/settings.json: hooks.Stop[0]: missing "hooks"`, ErrValue},
		{"trust level", "~/.robota/settings.json", `{"defaultTrustLevel":"total"}`,
			`~/.robota/settings.json: defaultTrustLevel: want one of safe, moderate, full, got "total"`, ErrValue},
		{"session log level", ".robota/settings.json", `{"sessionLog":{"level":"verbose"}}`,
			`.robota/settings.json: sessionLog.level: want one of compact, full, got "verbose"`, ErrValue},
		{"session log key", ".robota/settings.json", `{"sessionLog":{"level":2}}`,
			".robota/settings.json: sessionLog.level: want string, got number", ErrType},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.write(t, tt.file, tt.content)
			ve := f.loadErr(t)
			errs := ve.Errors()
			if len(errs) != 1 || errs[0].String() != tt.want {
				t.Errorf("errors = %q\nwant    [%q]", issueStrings(errs), tt.want)
			}
			if !errors.Is(ve, tt.sentinel) {
				t.Errorf("errors.Is(%v) = false", tt.sentinel)
			}
		})
	}
}

func TestUnknownKeysAreWarningsNamingTheFile(t *testing.T) {
	f := newFixture(t)
	f.write(t, ".claude/settings.json", `{
		"languag": "en",
		"permissions": {"allow": ["Read"], "alow": ["Edit"]},
		"providers": {"w": {"type": "openai", "api_key": "k", "options": {"anything": {"goes": true}}}},
		"hooks": {"BeforeEverything": [], "Stop": [{"hooks": [{"type": "command", "command": "true", "shell": "zsh"}]}]},
		"statusLine": {"type": "command", "command": "echo hi"},
		"includeCoAuthoredBy": false
	}`)
	s := f.load(t)
	want := []string{
		"warning .claude/settings.json: hooks.BeforeEverything: unknown key",
		"warning .claude/settings.json: hooks.Stop[0].hooks[0].shell: unknown key",
		"warning .claude/settings.json: languag: unknown key",
		"warning .claude/settings.json: permissions.alow: unknown key",
		"warning .claude/settings.json: providers.w.api_key: unknown key",
		"warning .claude/settings.json: includeCoAuthoredBy: accepted, has no effect in robota: " + NoEffectKeys()["includeCoAuthoredBy"],
		"warning .claude/settings.json: statusLine: accepted, has no effect in robota: " + NoEffectKeys()["statusLine"],
	}
	if got := issueStrings(s.Warnings); !reflect.DeepEqual(got, want) {
		t.Errorf("warnings:\n got %q\nwant %q", got, want)
	}
	// Passed-through keys keep their value for whoever wants them.
	if got := string(s.Extra["statusLine"]); got != `{"command":"echo hi","type":"command"}` {
		t.Errorf("Extra[statusLine] = %s", got)
	}
	if _, ok := s.Extra["languag"]; !ok {
		t.Errorf("unknown key not kept in Extra")
	}
}

// TestEveryProblemOfEveryFileAtOnce: a user fixing settings sees all findings in one run.
func TestEveryProblemOfEveryFileAtOnce(t *testing.T) {
	f := newFixture(t)
	f.write(t, "~/.claude/settings.json", `{"permissions":{"allow":"Read"},"theme":"dark"}`)
	f.write(t, ".robota/settings.json", "{\"language\": \"en\" \"model\": \"x\"}")
	f.write(t, ".claude/settings.json", `{"providers":{"work":{"type":"openai","timeout":"30s","baseUrl":"x"}}}`)
	f.write(t, ".claude/settings.local.json", `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","timeout":0}]}]}}`)
	ve := f.loadErr(t)
	golden(t, "every_problem.txt", strings.Join(issueStrings(ve.Issues), "\n")+"\n\n"+ve.Error()+"\n")
}

func TestHooksMergeAcrossLayers(t *testing.T) {
	f := newFixture(t)
	guard := `{"matcher":"Bash","hooks":[{"type":"command","command":"~/bin/guard","timeout":5}]}`
	f.write(t, "~/.claude/settings.json", `{"hooks":{"PreToolUse":[`+guard+`],"Stop":[{"hooks":[{"type":"command","command":"notify"}]}]}}`)
	f.write(t, ".claude/settings.json", `{"hooks":{"PreToolUse":[`+guard+`,{"matcher":"Edit|Write","hooks":[{"type":"command","command":"fmt"}]}]}}`)
	f.write(t, ".claude/settings.local.json", `{"hooks":{"SessionStart":[{"matcher":"startup","hooks":[{"type":"prompt","prompt":"p"}]}]},"disableAllHooks":false}`)
	s := f.load(t)

	if n := len(s.Hooks["PreToolUse"]); n != 2 {
		t.Fatalf("PreToolUse groups = %d, want 2 (the identical guard kept once)", n)
	}
	if g := s.Hooks["PreToolUse"][0]; g.Source.Display != "~/.claude/settings.json" || g.Hooks[0].Timeout != 5 {
		t.Errorf("first group = %+v", g)
	}
	if g := s.Hooks["PreToolUse"][1]; g.Source.Display != ".claude/settings.json" || g.Matcher != "Edit|Write" {
		t.Errorf("second group = %+v", g)
	}
	// The hook engine consumes Claude Code's JSON shape.
	var indented strings.Builder
	var v any
	if err := json.Unmarshal(s.Hooks.JSON(), &v); err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(v, "", "  ")
	indented.Write(b)
	golden(t, "hooks.json", indented.String()+"\n")
}

func TestAdditionalDirectories(t *testing.T) {
	f := newFixture(t)
	f.write(t, "~/.claude/settings.json", `{"permissions":{"additionalDirectories":["~/notes","lib"]}}`)
	f.write(t, ".robota/settings.json", `{"additionalDirectories":["../shared","/abs/dir","~/notes/"]}`)
	s := f.load(t)
	var got []string
	for _, d := range s.Permissions.AdditionalDirectories {
		got = append(got, d.Raw+" => "+d.Path+" ("+d.Source.Display+")")
	}
	want := []string{
		"~/notes => " + f.home + "/notes (~/.claude/settings.json)",
		"lib => " + f.home + "/lib (~/.claude/settings.json)",
		"../shared => " + strings.TrimSuffix(f.project, "/proj") + "/shared (.robota/settings.json)",
		"/abs/dir => /abs/dir (.robota/settings.json)",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("dirs:\n got %q\nwant %q", got, want)
	}
}

func TestOriginOfReplacedObject(t *testing.T) {
	f := newFixture(t)
	f.write(t, "~/.robota/settings.json", `{"statusLine":{"type":"command","command":"a"}}`)
	f.write(t, ".robota/settings.json", `{"statusLine":"none"}`)
	s := f.load(t)
	if src, _ := s.Origin("statusLine.command"); src.Display != ".robota/settings.json" {
		t.Errorf("stale origin for a replaced object's child: %q", src.Display)
	}
	if _, ok := s.Origin("nothing.here"); ok {
		t.Errorf("Origin of an absent key reported a source")
	}
}

func TestParentPath(t *testing.T) {
	for in, want := range map[string]string{
		"a.b.c":                "a.b",
		"a.b[3]":               "a.b",
		`providers["a.b"]`:     "providers",
		`providers["a.b"].key`: `providers["a.b"]`,
		"a":                    "",
	} {
		if got := parentPath(in); got != want {
			t.Errorf("parentPath(%q) = %q, want %q", in, got, want)
		}
	}
}

// Go's JSON decoder matches field names case-insensitively; an unknown key differing
// only in case must stay a warning and never feed a typed field.
func TestKeysDifferingInCaseAreUnknown(t *testing.T) {
	f := newFixture(t)
	f.write(t, ".robota/settings.json", `{"Provider":"x","currentProvider":"a",
		"providers":{"a":{"Type":"evil","type":"openai","Model":"m"}},
		"permissions":{"DefaultMode":"bypassPermissions"},
		"hooks":{"Stop":[{"hooks":[{"type":"command","command":"ok","Command":"evil","Timeout":"x"}]}]}}`)
	s := f.load(t)
	p := s.ActiveProvider()
	if p.Type != "openai" || p.Model != "" {
		t.Errorf("provider = %+v", p)
	}
	if s.PermissionMode() != "" {
		t.Errorf("mode = %q from a key that differs in case", s.PermissionMode())
	}
	if h := s.Hooks["Stop"][0].Hooks[0]; h.Command != "ok" || h.Timeout != 0 {
		t.Errorf("hook = %+v", h)
	}
	if n := len(s.Warnings); n != 6 {
		t.Errorf("warnings = %q, want 6 unknown keys", issueStrings(s.Warnings))
	}
}

// Every top-level key the settings schema accepts is honoured (a typed field, or read
// from Extra by its owner) or warned about as having no effect: none is silently ignored.
func TestEverySettingsKeyIsHonouredOrWarned(t *testing.T) {
	for key := range settingsSchema.Get().fields {
		_, noEffect := NoEffectKeys()[key]
		_, honoured := HonouredExtraKeys()[key]
		n := 0
		for _, b := range []bool{modelledKey(key), honoured, noEffect} {
			if b {
				n++
			}
		}
		if n > 1 {
			t.Errorf("settings key %q: modelled %v, honoured %v, no effect %v: want exactly one", key, modelledKey(key), honoured, noEffect)
		}
		if n == 0 {
			t.Errorf("settings key %q is accepted and neither honoured nor warned about", key)
		}
	}
	for key := range NoEffectKeys() {
		if _, ok := settingsSchema.Get().fields[key]; !ok {
			t.Errorf("NoEffectKeys names %q, which the schema does not accept", key)
		}
	}
}

// A no-effect key a file sets is a warning naming the file and the key.
func TestNoEffectKeyIsAWarning(t *testing.T) {
	f := newFixture(t)
	f.write(t, ".claude/settings.json", `{"cleanupPeriodDays": 30}`)
	s := f.load(t)
	for _, w := range s.Warnings {
		if w.Path == "cleanupPeriodDays" && strings.Contains(w.File, ".claude/settings.json") && strings.Contains(w.Message, "no effect") {
			return
		}
	}
	t.Fatalf("warnings %+v do not name cleanupPeriodDays", s.Warnings)
}

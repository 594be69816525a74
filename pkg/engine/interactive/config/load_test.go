package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestLayersFollowSpecOrder(t *testing.T) {
	got := Layers("/h", "/p")
	want := []Source{
		{1, ScopeUser, "/h/.robota/settings.json", "~/.robota/settings.json", "/h"},
		{2, ScopeUser, "/h/.claude/settings.json", "~/.claude/settings.json", "/h"},
		{3, ScopeProject, "/p/.robota/settings.json", ".robota/settings.json", "/p"},
		{4, ScopeLocal, "/p/.robota/settings.local.json", ".robota/settings.local.json", "/p"},
		{5, ScopeProject, "/p/.claude/settings.json", ".claude/settings.json", "/p"},
		{6, ScopeLocal, "/p/.claude/settings.local.json", ".claude/settings.local.json", "/p"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Layers:\n got %+v\nwant %+v", got, want)
	}
	if n := len(Layers("", "/p")); n != 4 {
		t.Errorf("without a home: %d layers, want the 4 project layers", n)
	}
}

func TestUserDenyWinsOverProjectAllow(t *testing.T) {
	f := newFixture(t)
	f.write(t, "~/.claude/settings.json", `{"permissions":{"deny":["Bash(rm *)","WebFetch"],"allow":["Read"]}}`)
	f.write(t, ".robota/settings.json", `{"permissions":{"allow":["Bash(rm *)","Read","Edit(/src/**)"]}}`)
	f.write(t, ".claude/settings.local.json", `{"permissions":{"allow":["Bash(rm *)"],"ask":["Bash(git push *)"]}}`)
	s := f.load(t)

	if got, want := Texts(s.Permissions.Deny), []string{"Bash(rm *)", "WebFetch"}; !reflect.DeepEqual(got, want) {
		t.Errorf("deny = %q, want %q", got, want)
	}
	if got, want := Texts(s.Permissions.Allow), []string{"Read", "Bash(rm *)", "Edit(/src/**)"}; !reflect.DeepEqual(got, want) {
		t.Errorf("allow = %q, want %q (union in layer order, de-duplicated)", got, want)
	}
	if got, want := Texts(s.Permissions.Ask), []string{"Bash(git push *)"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ask = %q, want %q", got, want)
	}
	// The project allow did not remove or replace the user deny: evaluated deny -> ask ->
	// allow, the first rule for `Bash(rm *)` is the user's deny.
	for _, r := range s.Permissions.EvaluationOrder() {
		if r.Text == "Bash(rm *)" {
			if r.Behavior != Deny || r.Source.Display != "~/.claude/settings.json" {
				t.Errorf("first rule for Bash(rm *) = %s from %s, want deny from ~/.claude/settings.json",
					r.Behavior, r.Source.Display)
			}
			break
		}
	}
	// Provenance: the project's `/src/**` is anchored at the project, the user's rules at home.
	for _, r := range s.Permissions.Allow {
		wantRoot := f.project
		if r.Source.Name == ScopeUser {
			wantRoot = f.home
		}
		if r.Source.Root != wantRoot {
			t.Errorf("rule %q from %s: root %q, want %q", r.Text, r.Source.Display, r.Source.Root, wantRoot)
		}
	}
	// The same text from the user layer (root home) and the project (root project) are two
	// rules for a `/path` evaluator but one entry in Texts.
	byLayer := s.Permissions.ByLayer()
	var layers []string
	for _, l := range byLayer {
		layers = append(layers, l.Source.Display)
	}
	if want := []string{"~/.claude/settings.json", ".robota/settings.json", ".claude/settings.local.json"}; !reflect.DeepEqual(layers, want) {
		t.Errorf("ByLayer sources = %q, want %q", layers, want)
	}
	if got := byLayer[0].Deny; !reflect.DeepEqual(got, []string{"Bash(rm *)", "WebFetch"}) {
		t.Errorf("user layer deny = %q", got)
	}
}

func TestLocalSettingsOverride(t *testing.T) {
	f := newFixture(t)
	f.write(t, "~/.robota/settings.json", `{"language":"en","providers":{"work":{"type":"anthropic","model":"m-user","apiKey":"k-user"}},"currentProvider":"work"}`)
	f.write(t, ".claude/settings.json", `{"language":"fr","permissions":{"defaultMode":"plan"},"providers":{"work":{"model":"m-project","timeout":30000}}}`)
	f.write(t, ".claude/settings.local.json", `{"language":"ko","permissions":{"defaultMode":"acceptEdits"},"providers":{"work":{"baseURL":"http://127.0.0.1:9"}}}`)
	s := f.load(t)

	if s.Language != "ko" {
		t.Errorf("language = %q, want the local override ko", s.Language)
	}
	if src, _ := s.Origin("language"); src.Display != ".claude/settings.local.json" {
		t.Errorf("language came from %q", src.Display)
	}
	if s.Permissions.DefaultMode != "acceptEdits" || s.Permissions.DefaultModeSource.Display != ".claude/settings.local.json" {
		t.Errorf("defaultMode = %q from %q", s.Permissions.DefaultMode, s.Permissions.DefaultModeSource.Display)
	}
	// Deep merge: each layer contributed one field of the profile. The user's key is not
	// used: a project-scope file chose the endpoint (credentials.go).
	p := s.ActiveProvider()
	want := ResolvedProvider{Profile: "work", Type: "anthropic", Model: "m-project", APIKey: "",
		BaseURL: "http://127.0.0.1:9", Timeout: 30 * time.Second, Source: p.Source, Configured: true,
		NoEnvCredentials: true, BaseURLSource: p.Source, BaseURLKey: "providers.work.baseURL"}
	if !reflect.DeepEqual(p, want) {
		t.Errorf("ActiveProvider =\n %+v\nwant\n %+v", p, want)
	}
	if p.Source.Display != ".claude/settings.local.json" {
		t.Errorf("profile source = %q, want the highest contributing layer", p.Source.Display)
	}
	for path, file := range map[string]string{
		"providers.work.apiKey":  "~/.robota/settings.json",
		"providers.work.model":   ".claude/settings.json",
		"providers.work.baseURL": ".claude/settings.local.json",
	} {
		if src, _ := s.Origin(path); src.Display != file {
			t.Errorf("Origin(%s) = %q, want %q", path, src.Display, file)
		}
	}
	if got := len(s.Loaded); got != 3 {
		t.Errorf("Loaded %d layers, want 3", got)
	}
}

func TestEnvSubstitution(t *testing.T) {
	f := newFixture(t)
	f.env["WORK_KEY"] = "sk-from-env"
	f.env["WORK_URL"] = "http://proxy.local/v1"
	// A user settings file: the endpoint is the user's choice, so references are substituted.
	f.write(t, "~/.robota/settings.json", `{
		"currentProvider": "work",
		"language": "$ENV:WORK_KEY",
		"providers": {
			"work": {"type": "openai", "apiKey": "$ENV:WORK_KEY", "baseURL": "$ENV:WORK_URL",
			         "model": "gpt-x", "options": {"org": "$ENV:MISSING_ORG", "n": 12345678901234567890}},
			"idle": {"type": "anthropic", "apiKey": "$ENV:IDLE_KEY"}
		}}`)
	s := f.load(t)
	p := s.ActiveProvider()
	if p.APIKey != "sk-from-env" || p.BaseURL != "http://proxy.local/v1" {
		t.Errorf("apiKey %q baseURL %q: references not substituted", p.APIKey, p.BaseURL)
	}
	if s.Language != "$ENV:WORK_KEY" {
		t.Errorf("language = %q: substitution must stay inside provider settings", s.Language)
	}
	if got := p.Options["org"]; got != "" {
		t.Errorf("unset reference became %q, want empty", got)
	}
	if got := p.Options["n"]; got == nil || got.(interface{ String() string }).String() != "12345678901234567890" {
		t.Errorf("options number = %v, want it passed through exactly", got)
	}
	var warns []string
	for _, w := range s.Warnings {
		warns = append(warns, w.String())
	}
	want := []string{"~/.robota/settings.json: providers.work.options.org: environment variable MISSING_ORG is not set"}
	if !reflect.DeepEqual(warns, want) {
		t.Errorf("warnings = %q, want %q (the idle profile's unset key is not worth a warning)", warns, want)
	}
}

func TestMalformedEnvReferenceIsAnError(t *testing.T) {
	f := newFixture(t)
	f.write(t, ".robota/settings.json", `{"providers":{"a":{"type":"openai","apiKey":"$ENV:1BAD"}}}`)
	ve := f.loadErr(t)
	if got := ve.Error(); !strings.Contains(got, `.robota/settings.json: providers.a.apiKey: malformed environment reference "$ENV:1BAD"`) {
		t.Errorf("error = %q", got)
	}
}

func TestMissingProfileNamesFileAndKey(t *testing.T) {
	f := newFixture(t)
	f.write(t, "~/.robota/settings.json", `{"providers":{"home":{"type":"anthropic"},"lab":{"type":"openai"}}}`)
	f.write(t, ".claude/settings.json", `{"currentProvider":"work"}`)
	ve := f.loadErr(t)
	if !errors.Is(ve, ErrMissingProfile) {
		t.Errorf("errors.Is(err, ErrMissingProfile) = false for %v", ve)
	}
	want := `settings: .claude/settings.json: currentProvider: names profile "work", which is not defined under providers (defined: home, lab)`
	if got := ve.Error(); got != want {
		t.Errorf("error =\n %s\nwant\n %s", got, want)
	}
}

func TestProfileWithoutType(t *testing.T) {
	f := newFixture(t)
	f.write(t, ".robota/settings.json", `{"providers":{"work":{"type":"openai"}}}`)
	f.write(t, ".claude/settings.json", `{"providers":{"typo":{"model":"x"}}}`)
	ve := f.loadErr(t)
	if !errors.Is(ve, ErrProfileType) {
		t.Errorf("not ErrProfileType: %v", ve)
	}
	if want := `settings: .claude/settings.json: providers.typo.type: profile "typo" has no type`; ve.Error() != want {
		t.Errorf("error = %q, want %q", ve.Error(), want)
	}
}

func TestMalformedJSONNamesFileLineColumn(t *testing.T) {
	tests := []struct {
		name, content, want string
	}{
		{"trailing comma", "{\n  \"language\": \"en\",\n}\n",
			`.claude/settings.json:3:1: invalid character '}' looking for beginning of object key string`},
		{"missing value", "{\n  \"permissions\": {\n    \"allow\": [\"Read\",]\n  }\n}",
			`.claude/settings.json:3:22: invalid character ']' looking for beginning of value`},
		{"columns count characters", "{\"language\": \"한국어\" \"x\"}",
			`.claude/settings.json:1:20: invalid character '"' after object key:value pair`},
		{"truncated", "{\n  \"language\": \"en\"",
			`.claude/settings.json:2:19: unexpected end of JSON input`},
		{"trailing data", "{}\n{}",
			`.claude/settings.json:2:1: invalid character '{' after top-level value`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.write(t, ".claude/settings.json", tt.content)
			ve := f.loadErr(t)
			if !errors.Is(ve, ErrSyntax) {
				t.Errorf("not ErrSyntax: %v", ve)
			}
			if got := ve.Errors()[0].String(); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestTopLevelMustBeObject(t *testing.T) {
	f := newFixture(t)
	f.write(t, ".robota/settings.local.json", `["Read"]`)
	ve := f.loadErr(t)
	if want := "settings: .robota/settings.local.json: want object at top level, got array"; ve.Error() != want {
		t.Errorf("error = %q, want %q", ve.Error(), want)
	}
}

func TestEmptyFileIsEmptyObject(t *testing.T) {
	f := newFixture(t)
	f.write(t, ".robota/settings.json", " \n")
	f.write(t, ".claude/settings.json", "\xEF\xBB\xBF{\"language\":\"de\"}")
	s := f.load(t)
	if s.Language != "de" || len(s.Warnings) != 0 {
		t.Errorf("language %q warnings %v", s.Language, s.Warnings)
	}
}

func TestUnreadableFileIsAnError(t *testing.T) {
	f := newFixture(t)
	f.write(t, ".claude/settings.json/oops", "") // a directory where the file should be
	ve := f.loadErr(t)
	if !errors.Is(ve, ErrRead) || !strings.Contains(ve.Error(), ".claude/settings.json: cannot read settings file") {
		t.Errorf("error = %v", ve)
	}
}

func TestNoSettingsAtAll(t *testing.T) {
	f := newFixture(t)
	s := f.load(t)
	p := s.ActiveProvider()
	if p.Configured || p.Type != "" || p.Timeout != DefaultProviderTimeout {
		t.Errorf("ActiveProvider with no settings = %+v, want unconfigured with the 120 s default timeout", p)
	}
	if len(s.Loaded) != 0 || len(s.Warnings) != 0 || s.PermissionMode() != "" {
		t.Errorf("empty settings: loaded %v warnings %v mode %q", s.Loaded, s.Warnings, s.PermissionMode())
	}
}

func TestProjectDirIsMadeAbsolute(t *testing.T) {
	f := newFixture(t)
	f.write(t, ".robota/settings.json", `{"permissions":{"additionalDirectories":["../shared"]}}`)
	t.Chdir(filepath.Dir(f.project))
	l := f.loader()
	l.ProjectDir = filepath.Base(f.project)
	s, err := l.Load()
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(filepath.Dir(f.project), "shared")
	if got := s.Permissions.AdditionalDirectories; len(got) != 1 || got[0].Path != want {
		t.Errorf("dirs = %+v, want %s", got, want)
	}
}

func TestHomeAsProjectReadsEachFileOnce(t *testing.T) {
	f := newFixture(t)
	f.project = f.home
	f.write(t, "~/.claude/settings.json", `{"permissions":{"allow":["Read"]},"oops":1}`)
	s := f.load(t)
	if len(s.Loaded) != 1 || s.Loaded[0].Name != ScopeUser || len(s.Warnings) != 1 || len(s.Permissions.Allow) != 1 {
		t.Errorf("loaded %+v warnings %v allow %v", s.Loaded, s.Warnings, s.Permissions.Allow)
	}
}

// `workers.labels` merges key by key across layers (a project asks for its repository,
// the user's machine-wide choice stays); a non-string label is refused.
func TestWorkerLabels(t *testing.T) {
	f := newFixture(t)
	f.write(t, "~/.robota/settings.json", `{"workers":{"labels":{"gpu":"a100","os":"linux"}}}`)
	f.write(t, ".claude/settings.json", `{"workers":{"labels":{"repo":"robota","os":"darwin"}}}`)
	s := f.load(t)
	want := map[string]string{"gpu": "a100", "os": "darwin", "repo": "robota"}
	if !reflect.DeepEqual(s.WorkerLabels, want) {
		t.Errorf("WorkerLabels = %v, want %v", s.WorkerLabels, want)
	}
	if _, extra := s.Extra["workers"]; extra {
		t.Error("workers is modelled, not passed through")
	}
	for _, w := range s.Warnings {
		if strings.Contains(w.Path, "workers") {
			t.Errorf("warning on workers: %+v", w)
		}
	}

	bad := newFixture(t)
	bad.write(t, ".claude/settings.json", `{"workers":{"labels":{"gpu":1}}}`)
	if err := bad.loadErr(t); !strings.Contains(fmt.Sprint(err.Issues), "workers.labels.gpu") {
		t.Errorf("a numeric label: %v, want an issue at workers.labels.gpu", err.Issues)
	}
}

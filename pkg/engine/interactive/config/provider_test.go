package config

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestProviderResolutionOrder(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		want    ResolvedProvider // Source is checked by display name only
		wantSrc string
	}{
		{
			name:  "nothing configured",
			files: map[string]string{},
			want:  ResolvedProvider{Timeout: DefaultProviderTimeout},
		},
		{
			name: "profile",
			files: map[string]string{".robota/settings.json": `{"currentProvider":"gemma","providers":{
				"gemma":{"type":"gemma","model":"g-26b","apiKey":"lm-studio","baseURL":"http://localhost:1234/v1","options":{"stream":{"x":1}}},
				"openai":{"type":"openai","model":"o"}}}`},
			want: ResolvedProvider{Profile: "gemma", Type: "gemma", Model: "g-26b", APIKey: "lm-studio",
				BaseURL: "http://localhost:1234/v1", Timeout: DefaultProviderTimeout, Configured: true,
				Options:          map[string]any{"stream": map[string]any{"x": jsonNumber("1")}},
				NoEnvCredentials: true, BaseURLKey: "providers.gemma.baseURL"},
			wantSrc: ".robota/settings.json",
		},
		{
			name:  "legacy provider",
			files: map[string]string{"~/.robota/settings.json": `{"provider":{"name":"anthropic","model":"claude-x","apiKey":"k","timeout":1500}}`},
			want: ResolvedProvider{Type: "anthropic", Model: "claude-x", APIKey: "k", Timeout: 1500 * time.Millisecond,
				Configured: true},
			wantSrc: "~/.robota/settings.json",
		},
		{
			name: "legacy never overrides an active profile",
			files: map[string]string{
				"~/.robota/settings.json": `{"currentProvider":"p","providers":{"p":{"type":"openai","model":"from-profile"}}}`,
				".claude/settings.json":   `{"provider":{"name":"anthropic","model":"legacy"}}`,
			},
			want:    ResolvedProvider{Profile: "p", Type: "openai", Model: "from-profile", Timeout: DefaultProviderTimeout, Configured: true},
			wantSrc: "~/.robota/settings.json",
		},
		{
			name:    "legacy without a name is not configured",
			files:   map[string]string{".robota/settings.json": `{"provider":{"model":"m"}}`},
			want:    ResolvedProvider{Model: "m", Timeout: DefaultProviderTimeout},
			wantSrc: ".robota/settings.json",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			for p, c := range tt.files {
				f.write(t, p, c)
			}
			got := f.load(t).ActiveProvider()
			if got.Source.Display != tt.wantSrc {
				t.Errorf("source = %q, want %q", got.Source.Display, tt.wantSrc)
			}
			if got.NoEnvCredentials && got.BaseURLSource.Display != tt.wantSrc {
				t.Errorf("baseURL source = %q, want %q", got.BaseURLSource.Display, tt.wantSrc)
			}
			got.Source, got.BaseURLSource = Source{}, Source{}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ActiveProvider =\n %#v\nwant\n %#v", got, tt.want)
			}
		})
	}
}

func TestOverrides(t *testing.T) {
	f := newFixture(t)
	f.env["WORK_KEY"] = "sk"
	f.write(t, "~/.claude/settings.json", `{"permissions":{"deny":["Bash(curl *)"]}}`)
	f.write(t, ".robota/settings.json", `{"currentProvider":"work","language":"en",
		"permissions":{"defaultMode":"plan","allow":["Read"]},
		"providers":{"work":{"type":"anthropic","model":"m1","apiKey":"$ENV:WORK_KEY"},
		             "local":{"type":"openai","model":"llama","baseURL":"http://127.0.0.1:11434/v1","apiKey":"$ENV:NOPE"}}}`)
	base := f.load(t)

	t.Run("zero value changes nothing", func(t *testing.T) {
		s, err := base.WithOverrides(Overrides{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(s.ActiveProvider(), base.ActiveProvider()) || s.PermissionMode() != "plan" ||
			!reflect.DeepEqual(s.Permissions, base.Permissions) {
			t.Errorf("zero overrides changed the settings")
		}
	})
	t.Run("flags win", func(t *testing.T) {
		s, err := base.WithOverrides(Overrides{
			Provider: "local", Model: "qwen", PermissionMode: "acceptEdits", Language: "ko",
			Allow: []string{"Bash(curl *)", "Edit"}, Deny: []string{"WebFetch"}, AdditionalDirectories: []string{"../lib"},
		})
		if err != nil {
			t.Fatal(err)
		}
		p := s.ActiveProvider()
		if p.Profile != "local" || p.Type != "openai" || p.Model != "qwen" || p.BaseURL != "http://127.0.0.1:11434/v1" {
			t.Errorf("provider = %+v", p)
		}
		if s.PermissionMode() != "acceptEdits" || s.Language != "ko" {
			t.Errorf("mode %q language %q", s.PermissionMode(), s.Language)
		}
		if src, _ := s.Origin("language"); src.Name != ScopeCLI {
			t.Errorf("language source %+v", src)
		}
		// A flag allow does not lift a settings deny: both are listed, deny is consulted first.
		if got := Texts(s.Permissions.Deny); !reflect.DeepEqual(got, []string{"Bash(curl *)", "WebFetch"}) {
			t.Errorf("deny = %q", got)
		}
		if got := Texts(s.Permissions.Allow); !reflect.DeepEqual(got, []string{"Read", "Bash(curl *)", "Edit"}) {
			t.Errorf("allow = %q", got)
		}
		last := s.Permissions.Allow[len(s.Permissions.Allow)-1]
		if last.Source.Name != ScopeCLI || last.Source.Root != f.project || last.Source.Layer != LayerCommandLine {
			t.Errorf("flag rule source = %+v", last.Source)
		}
		if d := s.Permissions.AdditionalDirectories; len(d) != 1 || d[0].Path != strings.TrimSuffix(f.project, "/proj")+"/lib" {
			t.Errorf("dirs = %+v", d)
		}
		// The local profile is active now, so its withheld key is worth a warning: the
		// project file that chose its endpoint gets no credential from the environment.
		if got := issueStrings(s.Warnings); !reflect.DeepEqual(got, []string{
			"warning .robota/settings.json: providers.local.apiKey: $ENV:NOPE is not substituted: .robota/settings.json, a project settings file, sets providers.local.baseURL, and credentials from the environment are never sent to an endpoint a project file chose (write the key literally in that file, or set baseURL in user settings)"}) {
			t.Errorf("warnings = %q", got)
		}
		if len(base.Warnings) != 0 || base.Language != "en" {
			t.Errorf("WithOverrides modified its receiver")
		}
	})
	t.Run("provider type without a profile", func(t *testing.T) {
		s, err := base.WithOverrides(Overrides{Provider: "openai", Model: "gpt-x"})
		if err != nil {
			t.Fatal(err)
		}
		want := ResolvedProvider{Type: "openai", Model: "gpt-x", Timeout: DefaultProviderTimeout,
			Source: commandLineSource(f.project), Configured: true}
		if got := s.ActiveProvider(); !reflect.DeepEqual(got, want) {
			t.Errorf("got %+v\nwant %+v", got, want)
		}
	})
	t.Run("trust alias", func(t *testing.T) {
		s, err := base.WithOverrides(Overrides{PermissionMode: "safe"})
		if err != nil {
			t.Fatal(err)
		}
		if s.PermissionMode() != "plan" {
			t.Errorf("mode = %q", s.PermissionMode())
		}
	})
	t.Run("invalid flag names the command line", func(t *testing.T) {
		_, err := base.WithOverrides(Overrides{PermissionMode: "yolo", Allow: []string{""}})
		if err == nil {
			t.Fatal("no error")
		}
		for _, want := range []string{
			`command line: permissions.defaultMode: want one of default, acceptEdits, plan, bypassPermissions, dontAsk, got "yolo"`,
			"command line: permissions.allow[0]: empty permission rule",
		} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q lacks %q", err, want)
			}
		}
	})
	t.Run("again replaces earlier overrides", func(t *testing.T) {
		s1, err := base.WithOverrides(Overrides{Deny: []string{"Write"}})
		if err != nil {
			t.Fatal(err)
		}
		s2, err := s1.WithOverrides(Overrides{Model: "m2"})
		if err != nil {
			t.Fatal(err)
		}
		if got := Texts(s2.Permissions.Deny); !reflect.DeepEqual(got, []string{"Bash(curl *)"}) {
			t.Errorf("deny = %q", got)
		}
		if s2.ActiveProvider().Model != "m2" || s2.ActiveProvider().APIKey != "sk" {
			t.Errorf("provider = %+v", s2.ActiveProvider())
		}
	})
}

func TestPermissionModeFromLegacyTrustLevel(t *testing.T) {
	f := newFixture(t)
	f.write(t, "~/.robota/settings.json", `{"defaultTrustLevel":"full"}`)
	if got := f.load(t).PermissionMode(); got != "acceptEdits" {
		t.Errorf("full -> %q, want acceptEdits", got)
	}
	f.write(t, ".claude/settings.json", `{"permissions":{"defaultMode":"dontAsk"}}`)
	if got := f.load(t).PermissionMode(); got != "dontAsk" {
		t.Errorf("defaultMode must win over the legacy trust level, got %q", got)
	}
}

func TestHugeTimeoutDoesNotOverflow(t *testing.T) {
	f := newFixture(t)
	f.write(t, ".robota/settings.json", `{"currentProvider":"a","providers":{"a":{"type":"x","timeout":1e300}}}`)
	if got := f.load(t).ActiveProvider().Timeout; got <= 0 {
		t.Errorf("timeout = %v, want a positive duration", got)
	}
}

func jsonNumber(s string) json.Number { return json.Number(s) }

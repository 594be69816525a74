package config

import (
	"errors"
	"testing"
)

// --settings is a layer above every file and below the flags; --setting-sources picks the
// files by scope.
func TestFlagSettingsLayerAndSources(t *testing.T) {
	f := newFixture(t)
	f.write(t, "~/.robota/settings.json", `{"language": "user", "permissions": {"deny": ["A"]}}`)
	f.write(t, ".robota/settings.json", `{"language": "project", "permissions": {"deny": ["B"]}}`)
	f.write(t, ".claude/settings.local.json", `{"language": "local", "permissions": {"deny": ["C"]}}`)
	tests := []struct {
		name      string
		sources   []string
		extra     string
		overrides Overrides
		wantLang  string
		wantDeny  []string
	}{
		{name: "every file", wantLang: "local", wantDeny: []string{"A", "B", "C"}},
		{name: "user and project", sources: []string{"user", "project"}, wantLang: "project", wantDeny: []string{"A", "B"}},
		{name: "none", sources: []string{}, wantLang: "", wantDeny: nil},
		{name: "--settings above the files", extra: `{"language": "flag", "permissions": {"deny": ["D"]}}`, wantLang: "flag", wantDeny: []string{"A", "B", "C", "D"}},
		{name: "flags above --settings", extra: `{"language": "flag"}`, overrides: Overrides{Language: "cli"}, wantLang: "cli", wantDeny: []string{"A", "B", "C"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := f.loader()
			l.Sources = tt.sources
			if tt.extra != "" {
				l.Extra = &LayerData{Source: Source{Display: "--settings"}, Data: []byte(tt.extra)}
			}
			s, err := l.Load()
			if err != nil {
				t.Fatal(err)
			}
			if s, err = s.WithOverrides(tt.overrides); err != nil {
				t.Fatal(err)
			}
			var deny []string
			for _, r := range s.Permissions.Deny {
				deny = append(deny, r.Text)
			}
			if s.Language != tt.wantLang || len(deny) != len(tt.wantDeny) {
				t.Fatalf("language %q deny %q; want %q %q", s.Language, deny, tt.wantLang, tt.wantDeny)
			}
			for i := range deny {
				if deny[i] != tt.wantDeny[i] {
					t.Fatalf("deny %q, want %q", deny, tt.wantDeny)
				}
			}
		})
	}
	// A bad --settings names itself.
	l := f.loader()
	l.Extra = &LayerData{Source: Source{Display: "--settings"}, Data: []byte(`{"language": 3}`)}
	var verr *ValidationError
	if _, err := l.Load(); !errors.As(err, &verr) || verr.Issues[0].File != "--settings" {
		t.Fatalf("bad --settings: %v, want a ValidationError naming --settings", err)
	}
}

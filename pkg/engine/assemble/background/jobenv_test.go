package background

import (
	"maps"
	"testing"
)

func TestJobEnvSendsOnlyWhatTheSettingsAdd(t *testing.T) {
	own := map[string]string{"PATH": "/bin", "ANTHROPIC_API_KEY": "sk-secret", "MODE": "engine"}
	lookup := func(name string) (string, bool) { v, ok := own[name]; return v, ok }
	tests := []struct {
		name string
		env  []string
		want map[string]string
	}{
		{"no settings env", nil, nil},
		{"inherited only", []string{"PATH=/bin", "ANTHROPIC_API_KEY=sk-secret"}, nil},
		{"added and overridden", []string{"PATH=/bin", "ANTHROPIC_API_KEY=sk-secret", "MODE=engine", "FOO=bar", "MODE=project"},
			map[string]string{"FOO": "bar", "MODE": "project"}},
		{"overridden back to robota's own value", []string{"MODE=x", "MODE=engine"}, map[string]string{"MODE": "engine"}},
		{"malformed entries skipped", []string{"=x", "NOEQUALS", "A=1"}, map[string]string{"A": "1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := jobEnv(tt.env, lookup); !maps.Equal(got, tt.want) {
				t.Fatalf("jobEnv = %v, want %v", got, tt.want)
			}
		})
	}
}

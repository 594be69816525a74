package assemble

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	. "github.com/robota-sdk/robota-go/pkg/engine/interactive"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

const helloScript = "turns:\n  - text: hi\n"

func assembleFlags(t *testing.T, dir, home string, opts Options) (*Assembled, error) {
	t.Helper()
	opts.Cwd, opts.Home, opts.Env, opts.NewID, opts.Now = dir, home, envOf(nil), ids(), fixedNow
	a, err := Assemble(context.Background(), opts)
	if err == nil {
		t.Cleanup(func() { _ = a.Close(context.Background(), "other") })
	}
	return a, err
}

func systemText(a *Assembled) string {
	for _, m := range a.Session.Messages() {
		if m.Role == llm.RoleSystem {
			return m.Text()
		}
	}
	return ""
}

// Issue 13 §2: --system-prompt replaces the built prompt ("" is none); --append-system-prompt
// still appends.
func TestSystemPromptReplaces(t *testing.T) {
	str := func(s string) *string { return &s }
	tests := []struct {
		name         string
		system       *string
		appendPrompt string
		want         string // exact, or "" for none; "built" for the built prompt
	}{
		{"built", nil, "", "built"},
		{"replaced", str("You are a pirate."), "", "You are a pirate."},
		{"replaced and appended", str("You are a pirate."), "Say arr.", "You are a pirate.\n\nSay arr."},
		{"none", str(""), "", ""},
		{"none but appended", str(""), "Say arr.", "Say arr."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, home := project(t, helloScript, "")
			a, err := assembleFlags(t, dir, home, Options{SystemPrompt: tt.system, AppendSystemPrompt: tt.appendPrompt})
			if err != nil {
				t.Fatal(err)
			}
			got := systemText(a)
			if tt.want == "built" {
				if !strings.Contains(got, dir) { // the built prompt names the working directory
					t.Fatalf("system prompt %q is not the built one", got)
				}
				return
			}
			if got != tt.want {
				t.Fatalf("system prompt %q, want %q", got, tt.want)
			}
		})
	}
}

func TestBuiltinToolsSelection(t *testing.T) {
	dir, home := project(t, helloScript, "")
	a, err := assembleFlags(t, dir, home, Options{BuiltinTools: []string{"Read", "NotebookEdit", "Bash"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Bash", "Read"}; !sameSet(a.Tools, want) {
		t.Fatalf("tools %q, want %q", a.Tools, want)
	}
	if !strings.Contains(strings.Join(a.Warnings, "\n"), `--tools: robota has no built-in tool "NotebookEdit"`) {
		t.Fatalf("warnings %q lack the unknown tool", a.Warnings)
	}
	dir, home = project(t, helloScript, "")
	if a, err = assembleFlags(t, dir, home, Options{BuiltinTools: []string{}}); err != nil || len(a.Tools) != 0 {
		t.Fatalf("--tools \"\": tools %q, err %v; want none", a.Tools, err)
	}
	dir, home = project(t, helloScript, "")
	if a, err = assembleFlags(t, dir, home, Options{}); err != nil || len(a.Tools) < 5 {
		t.Fatalf("no --tools: tools %q, err %v; want every built-in tool", a.Tools, err)
	}
}

func sameSet(a, b []string) bool {
	m := map[string]int{}
	for _, s := range a {
		m[s]++
	}
	for _, s := range b {
		m[s]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return len(a) == len(b)
}

func TestSessionIDFlag(t *testing.T) {
	const id = "0b8ad1a2-6c1e-4f4e-9d59-6d7e1b2c3d4e"
	dir, home := project(t, helloScript, "")
	a, err := assembleFlags(t, dir, home, Options{SessionID: id})
	if err != nil {
		t.Fatal(err)
	}
	if a.Session.ID() != id {
		t.Fatalf("session id %s, want %s", a.Session.ID(), id)
	}
	if _, err := a.Session.Run(context.Background(), "hello"); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(context.Background(), "other"); err != nil {
		t.Fatal(err)
	}
	if _, err := assembleFlags(t, dir, home, Options{SessionID: id}); !errors.Is(err, ErrInvalidConfiguration) ||
		!strings.Contains(err.Error(), "already exists") {
		t.Fatalf("reused --session-id: %v, want an ErrInvalidConfiguration saying it exists", err)
	}
	if _, err := assembleFlags(t, dir, home, Options{SessionID: "1b8ad1a2-6c1e-4f4e-9d59-6d7e1b2c3d4e", Resume: id}); !errors.Is(err, ErrInvalidConfiguration) {
		t.Fatalf("--session-id with --resume: %v, want ErrInvalidConfiguration", err)
	}
	const forkID = "2b8ad1a2-6c1e-4f4e-9d59-6d7e1b2c3d4e"
	f, err := assembleFlags(t, dir, home, Options{SessionID: forkID, Resume: id, Fork: true})
	if err != nil {
		t.Fatal(err)
	}
	if f.Session.ID() != forkID || f.ResumedFrom != id {
		t.Fatalf("fork id %s from %s, want %s from %s", f.Session.ID(), f.ResumedFrom, forkID, id)
	}
}

// --settings (file or JSON) is a layer above the files; --setting-sources picks the files.
func TestSettingsFlagAndSources(t *testing.T) {
	dir, home := project(t, helloScript, `, "permissions": {"deny": ["Bash(rm *)"]}`)
	writeFile(t, filepath.Join(home, ".robota", "settings.json"), `{"permissions": {"deny": ["WebFetch"]}}`)
	writeFile(t, filepath.Join(dir, "extra.json"), `{"language": "fr", "permissions": {"allow": ["Read"]}}`)
	denies := func(a *Assembled) []string {
		var out []string
		for _, r := range a.Settings.Permissions.Deny {
			out = append(out, r.Text)
		}
		return out
	}
	a, err := assembleFlags(t, dir, home, Options{Settings: "extra.json"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Settings.Language != "fr" || !reflect.DeepEqual(denies(a), []string{"WebFetch", "Bash(rm *)"}) {
		t.Fatalf("language %q denies %q: want the file's language over both layers", a.Settings.Language, denies(a))
	}
	a, err = assembleFlags(t, dir, home, Options{Settings: `{"language": "de"}`, SettingSources: []string{"project"}})
	if err != nil {
		t.Fatal(err)
	}
	if a.Settings.Language != "de" || !reflect.DeepEqual(denies(a), []string{"Bash(rm *)"}) {
		t.Fatalf("language %q denies %q: want inline JSON and the project layer only", a.Settings.Language, denies(a))
	}
	if _, err := assembleFlags(t, dir, home, Options{Settings: "missing.json"}); !errors.Is(err, ErrInvalidConfiguration) {
		t.Fatalf("--settings missing.json: %v, want ErrInvalidConfiguration", err)
	}
	// No settings file read: the project's provider profile is gone too.
	if _, err := assembleFlags(t, dir, home, Options{SettingSources: []string{}}); !errors.Is(err, ErrNoProvider) {
		t.Fatalf("--setting-sources \"\": %v, want ErrNoProvider (no file read)", err)
	}
}

// --add-dir adds to the additional directories.
func TestAddDirs(t *testing.T) {
	dir, home := project(t, helloScript, "")
	other := t.TempDir()
	a, err := assembleFlags(t, dir, home, Options{AddDirs: []string{other}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range a.Settings.Permissions.AdditionalDirectories {
		got = append(got, d.Path)
	}
	if !reflect.DeepEqual(got, []string{other}) {
		t.Fatalf("additional directories %q, want %q", got, other)
	}
}

// --model without --provider is honoured (the detected provider's default used to
// overwrite it); default, sonnet, opus and haiku resolve per provider type.
func TestModelFlagAndAliases(t *testing.T) {
	tests := []struct {
		name, provider, model string
		env                   map[string]string
		want                  string
		wantErr               bool
	}{
		{name: "model without provider", model: "claude-opus-4-1", env: map[string]string{"ANTHROPIC_API_KEY": "k"}, want: "claude-opus-4-1"},
		{name: "alias without provider", model: "haiku", env: map[string]string{"ANTHROPIC_API_KEY": "k"}, want: "claude-haiku-4-5"},
		{name: "default alias", provider: "openai", model: "default", env: map[string]string{"OPENAI_API_KEY": "k"}, want: "gpt-4.1"},
		{name: "sonnet on anthropic", provider: "anthropic", model: "Sonnet", env: map[string]string{"ANTHROPIC_API_KEY": "k"}, want: "claude-sonnet-4-6"},
		{name: "opus not served by openai", provider: "openai", model: "opus", env: map[string]string{"OPENAI_API_KEY": "k"}, wantErr: true},
		{name: "model id passes", provider: "openai", model: "gpt-5", env: map[string]string{"OPENAI_API_KEY": "k"}, want: "gpt-5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := Options{Cwd: t.TempDir(), Home: t.TempDir(), Env: envOf(tt.env), Provider: tt.provider, Model: tt.model}
			s, err := loadSettings(opts)
			if err != nil {
				t.Fatal(err)
			}
			c, err := chooseProvider(s, opts)
			if tt.wantErr {
				if !errors.Is(err, ErrInvalidConfiguration) {
					t.Fatalf("err %v, want ErrInvalidConfiguration", err)
				}
				return
			}
			if err != nil || c.Model != tt.want {
				t.Fatalf("model %q (err %v), want %q", c.Model, err, tt.want)
			}
		})
	}
}

// --no-session-persistence writes neither a record nor a log; a resumed session is read
// and its continuation is not saved.
func TestNoPersistence(t *testing.T) {
	dir, home := project(t, "turns:\n  - text: hi\n    repeat: true\n", "")
	a, err := assembleFlags(t, dir, home, Options{NoPersistence: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Session.Run(context.Background(), "hello"); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(context.Background(), "other"); err != nil {
		t.Fatal(err)
	}
	if a.RecordPath != "" || a.LogPath != "" {
		t.Fatalf("paths %q %q, want none", a.RecordPath, a.LogPath)
	}
	for _, sub := range []string{"sessions", "logs"} {
		if entries, _ := os.ReadDir(filepath.Join(dir, ".robota", sub)); len(entries) != 0 {
			t.Fatalf(".robota/%s has %d entries, want none", sub, len(entries))
		}
	}

	saved, err := assembleFlags(t, dir, home, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := saved.Session.Run(context.Background(), "first"); err != nil {
		t.Fatal(err)
	}
	if err := saved.Close(context.Background(), "other"); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(saved.RecordPath)
	if err != nil {
		t.Fatal(err)
	}
	r, err := assembleFlags(t, dir, home, Options{Resume: saved.Session.ID(), NoPersistence: true})
	if err != nil {
		t.Fatal(err)
	}
	n := len(r.Session.Messages())
	if _, err := r.Session.Run(context.Background(), "second"); err != nil {
		t.Fatal(err)
	}
	if err := r.Close(context.Background(), "other"); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(saved.RecordPath); string(after) != string(before) || n < 2 {
		t.Fatalf("the resumed session (%d messages) was saved again (record changed: %v)", n, string(after) != string(before))
	}
}

// --max-thinking-tokens becomes the type's thinking budget option; a type without one
// gets a warning.
func TestMaxThinkingTokens(t *testing.T) {
	dir := t.TempDir()
	opts := Options{Cwd: dir, Home: t.TempDir(), Env: envOf(map[string]string{"ANTHROPIC_API_KEY": "k"}), NewID: ids(), Now: fixedNow,
		MaxThinkingTokens: 2048}
	a, err := Assemble(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(context.Background(), "other")
	if got := a.Provider.Options["thinkingBudget"]; got != 2048 {
		t.Fatalf("thinkingBudget option %v, want 2048", got)
	}
	sdir, home := project(t, helloScript, "")
	s, err := assembleFlags(t, sdir, home, Options{MaxThinkingTokens: 2048})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(s.Warnings, "\n"), "--max-thinking-tokens has no effect: provider script") {
		t.Fatalf("warnings %q lack the no-effect note", s.Warnings)
	}
}

// --betas joins the type's beta header, after a profile's own.
func TestBetas(t *testing.T) {
	c := ProviderChoice{}
	c.Type, c.Options = "anthropic", map[string]any{"headers": map[string]any{"anthropic-beta": "a", "x-team": "t"}, "maxTokens": 10}
	if w := c.withBetas([]string{"b", "c"}, false); w != "" {
		t.Fatal(w)
	}
	want := map[string]any{"headers": map[string]any{"anthropic-beta": "a,b,c", "x-team": "t"}, "maxTokens": 10}
	if !reflect.DeepEqual(c.Options, want) {
		t.Fatalf("options %v, want %v", c.Options, want)
	}
	s := ProviderChoice{}
	s.Type = "script"
	if w := s.withBetas([]string{"b"}, false); !strings.Contains(w, "--betas has no effect: provider script") || s.Options != nil {
		t.Fatalf("script: warning %q options %v", w, s.Options)
	}
}

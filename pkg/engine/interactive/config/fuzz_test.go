package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzBuild feeds arbitrary bytes as the project's .claude/settings.json, above a fixed
// user layer, and checks the loader's contract: no panic, errors are *ValidationError
// naming a known file (with a position for malformed JSON), results are deterministic,
// and a successful load resolves to a usable provider.
func FuzzBuild(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "seeds", "*.json"))
	for _, p := range seeds {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{``, `{}`, `[]`, `null`, `{"a":`, "\xEF\xBB\xBF{}", `{"permissions":{"allow":["Read"]}}`,
		`{"providers":{"a.b":{"type":"x","apiKey":"$ENV:K"}},"currentProvider":"a.b"}`} {
		f.Add([]byte(s))
	}
	user := []byte(`{"permissions":{"deny":["Bash(rm *)"]},"providers":{"u":{"type":"openai","timeout":1000}}}`)
	layers := Layers("/home/u", "/work/p")
	l := Loader{Home: "/home/u", ProjectDir: "/work/p", Env: func(k string) (string, bool) {
		return "v-" + k, k != "UNSET"
	}}
	f.Fuzz(func(t *testing.T, data []byte) {
		files := []LayerData{{Source: layers[0], Data: user}, {Source: layers[4], Data: data}}
		s, err := l.Build(files)
		s2, err2 := l.Build(files)
		if (err == nil) != (err2 == nil) {
			t.Fatalf("nondeterministic: %v vs %v", err, err2)
		}
		trimmed := bytes.Trim(bytes.TrimPrefix(data, utf8BOM), jsonSpace)
		syntaxOK := len(trimmed) == 0 || json.Valid(trimmed)
		if err != nil {
			var ve, ve2 *ValidationError
			if !errors.As(err, &ve) || !errors.As(err2, &ve2) {
				t.Fatalf("error %T is not a *ValidationError: %v", err, err)
			}
			if !reflect.DeepEqual(ve.Issues, ve2.Issues) {
				t.Fatalf("nondeterministic issues:\n%v\n%v", ve.Issues, ve2.Issues)
			}
			if len(ve.Errors()) == 0 {
				t.Fatalf("ValidationError without an error issue: %v", ve.Issues)
			}
			for _, i := range ve.Issues {
				if i.File != layers[0].Display && i.File != layers[4].Display {
					t.Fatalf("issue names no layer file: %+v", i)
				}
				if errors.Is(i.Err, ErrSyntax) && (i.Line < 1 || i.Column < 1) {
					t.Fatalf("syntax error without a position: %+v", i)
				}
			}
			if errors.Is(err, ErrSyntax) == syntaxOK {
				t.Fatalf("json.Valid=%v but ErrSyntax=%v: %v", syntaxOK, errors.Is(err, ErrSyntax), err)
			}
			return
		}
		if !syntaxOK {
			t.Fatalf("invalid JSON loaded without error: %q", data)
		}
		if !reflect.DeepEqual(s.Warnings, s2.Warnings) {
			t.Fatalf("nondeterministic warnings")
		}
		p := s.ActiveProvider()
		if p.Timeout <= 0 {
			t.Fatalf("timeout %v", p.Timeout)
		}
		if p.Configured != (p.Type != "") {
			t.Fatalf("Configured=%v with type %q", p.Configured, p.Type)
		}
		if !json.Valid(s.Hooks.JSON()) {
			t.Fatalf("Hooks.JSON invalid: %s", s.Hooks.JSON())
		}
		if len(s.Permissions.Deny) == 0 || s.Permissions.Deny[0].Text != "Bash(rm *)" {
			t.Fatalf("the user layer's deny was lost: %+v", s.Permissions.Deny)
		}
		for _, r := range s.Permissions.EvaluationOrder() {
			if r.Text == "" || r.Source.Display == "" {
				t.Fatalf("rule without text or source: %+v", r)
			}
		}
		again, err := s.WithOverrides(Overrides{})
		if err != nil {
			t.Fatalf("WithOverrides(zero): %v", err)
		}
		if !reflect.DeepEqual(again.ActiveProvider(), p) {
			t.Fatalf("zero overrides changed the provider")
		}
	})
}

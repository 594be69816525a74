package search

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/tools/internal/golden"
)

// prefixExclude excludes the fixture entries rels name and everything below them.
func prefixExclude(root string, rels ...string) Exclude {
	return func(abs string) bool {
		for _, rel := range rels {
			p := filepath.Join(root, filepath.FromSlash(rel))
			if abs == p || strings.HasPrefix(abs, p+"/") {
				return true
			}
		}
		return false
	}
}

// A call's own filter (WithCallExclude) leaves out what it names besides the tool's: with
// half of excludedRel in the tool's filter and the other half in the call's, Grep (either
// backend) and Glob answer as if none of excludedRel existed; without the call's, the
// call's half is found.
func TestCallExcludeAddsToTheToolsOwn(t *testing.T) {
	toolRels, callRels := []string{".env", "src/util"}, []string{"config.json", "deep/a"}
	for name, config := range grepBackends(t) {
		t.Run("grep-"+name, func(t *testing.T) {
			fullWS, full := newFixture(t)
			strippedWS, stripped := strippedFixture(t)
			cfg, ref := config(t), config(t)
			cfg.Workspace, cfg.Exclude = fullWS, prefixExclude(full, toolRels...)
			ref.Workspace = strippedWS
			g, err := NewGrep(cfg)
			if err != nil {
				t.Fatal(err)
			}
			reference, err := NewGrep(ref)
			if err != nil {
				t.Fatal(err)
			}
			ctx := WithCallExclude(context.Background(), prefixExclude(full, callRels...))
			callsHalfFound := 0
			for _, c := range excludeGrepCases {
				res := g.Execute(ctx, json.RawMessage(golden.JSON(c.args)))
				got := strings.ReplaceAll(res.Output, full, "$ROOT")
				want := runGrep(t, reference, stripped, c.args)
				if got != want.Output {
					t.Errorf("case %q with the call's filter:\n%s\nwant\n%s", c.name, got, want.Output)
				}
				if runGrep(t, g, full, c.args).Output != want.Output {
					callsHalfFound++
				}
			}
			if callsHalfFound == 0 {
				t.Errorf("without the call's filter every case answers as with it: the test tests nothing")
			}
		})
	}
	t.Run("glob", func(t *testing.T) {
		fullWS, full := newFixture(t)
		strippedWS, stripped := strippedFixture(t)
		g, err := NewGlob(GlobConfig{Workspace: fullWS, Exclude: prefixExclude(full, toolRels...)})
		if err != nil {
			t.Fatal(err)
		}
		reference, _ := NewGlob(GlobConfig{Workspace: strippedWS})
		ctx := WithCallExclude(context.Background(), prefixExclude(full, callRels...))
		args := json.RawMessage(golden.JSON(map[string]any{"pattern": "**/*"}))
		got := strings.ReplaceAll(g.Execute(ctx, args).Output, full, "$ROOT")
		want := strings.ReplaceAll(reference.Execute(context.Background(), args).Output, stripped, "$ROOT")
		if got != want {
			t.Errorf("with the call's filter:\n%s\nwant\n%s", got, want)
		}
		toolOnly := strings.ReplaceAll(g.Execute(context.Background(), args).Output, full, "$ROOT")
		if !strings.Contains(toolOnly, "$ROOT/config.json") || !strings.Contains(toolOnly, "$ROOT/deep/a/") {
			t.Errorf("without the call's filter the call's half should be listed:\n%s", toolOnly)
		}
	})
}

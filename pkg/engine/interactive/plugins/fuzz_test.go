package plugins

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func seedFiles(f *testing.F, pattern string) {
	paths, _ := filepath.Glob(pattern)
	for _, p := range paths {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
}

// FuzzParseManifest: any input parses or is an ErrManifest, never a panic; a manifest
// that parses has a usable name and its component fields decode without panicking.
func FuzzParseManifest(f *testing.F) {
	seedFiles(f, "testdata/market/plugins/*/.claude-plugin/plugin.json")
	for _, s := range []string{`{"name":"a","commands":{"x":{"source":"./x.md"}}}`, `{"name":"a","hooks":["./h.json",{"Stop":[]}]}`,
		"\xef\xbb\xbf{\"name\":\"b\"}", `{"name":"a b"}`, `{"name":"..x"}`, `[]`, `{"name":"a"} {}`, `{"name":"a","author":"me"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseManifest(data)
		if err != nil {
			return
		}
		if ValidName(m.Name) != nil {
			t.Fatalf("accepted name %q", m.Name)
		}
		_, _ = commandList(m.Commands)
		_, _ = pathList(m.Agents)
		_, _ = mixedList(m.Hooks)
		_, _ = mixedList(m.MCPServers)
	})
}

// FuzzParseMarketplace: any input parses or errors, never a panic; every entry kept has
// a valid, unique name and a source of a known kind.
func FuzzParseMarketplace(f *testing.F) {
	seedFiles(f, "testdata/market/.claude-plugin/marketplace.json")
	for _, s := range []string{`{"name":"m","plugins":[{"name":"p","source":{"source":"github","repo":"a/b"}}]}`,
		`{"name":"m","plugins":[{"name":"p","source":{"source":"url"}}]}`, `{"name":"m","plugins":null}`, `{"name":"m","metadata":[]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, _, err := ParseMarketplace(data)
		if err != nil {
			return
		}
		if ValidName(m.Name) != nil {
			t.Fatalf("accepted marketplace name %q", m.Name)
		}
		seen := map[string]bool{}
		for _, e := range m.Plugins {
			if ValidName(e.Name) != nil || seen[e.Name] {
				t.Fatalf("accepted entry name %q", e.Name)
			}
			seen[e.Name] = true
			if e.Source.Kind != KindPath && e.Source.check() != nil {
				t.Fatalf("accepted source %+v", e.Source)
			}
			_, _ = json.Marshal(e.Source)
			_ = e.Source.String()
		}
	})
}

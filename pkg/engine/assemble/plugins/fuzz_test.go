package plugins

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
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

// FuzzLoadPlugin loads a plugin whose plugin.json, hooks/hooks.json and .mcp.json are
// the fuzzer's: it never panics, every path it contributes stays inside the plugin, and
// every hook and MCP server it keeps has ${CLAUDE_PLUGIN_ROOT} replaced.
func FuzzLoadPlugin(f *testing.F) {
	f.Add([]byte(`{"name":"p","commands":["./c.md","../x"],"agents":"./a","skills":["./s"],"hooks":{"Stop":[{"hooks":[{"type":"command","command":"x"}]}]},"mcpServers":{"m":{"command":"${CLAUDE_PLUGIN_ROOT}/m"}}}`),
		[]byte(`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"${CLAUDE_PLUGIN_ROOT}/h.sh"}]}]}}`),
		[]byte(`{"mcpServers":{"s":{"command":"${CLAUDE_PLUGIN_ROOT}/s","args":["${CLAUDE_PLUGIN_ROOT}"]}}}`))
	f.Add([]byte(`{"name":"q","hooks":["./hooks/hooks.json","/etc/passwd"],"mcpServers":["./.mcp.json","x.mcpb"]}`), []byte(`{}`), []byte(`{"s":{"type":"http","url":"${CLAUDE_PLUGIN_ROOT}"}}`))
	root := f.TempDir()
	f.Fuzz(func(t *testing.T, manifest, hooks, servers []byte) {
		dir, err := os.MkdirTemp(root, "p")
		if err != nil {
			t.Skip()
		}
		defer os.RemoveAll(dir)
		for rel, data := range map[string][]byte{ManifestPath: manifest, HooksPath: hooks, MCPPath: servers,
			"c.md": []byte("c"), "a/x.md": []byte("---\ndescription: d\n---\n"), "s/SKILL.md": []byte("s")} {
			path := filepath.Join(dir, filepath.FromSlash(rel))
			if os.MkdirAll(filepath.Dir(path), 0o755) != nil || os.WriteFile(path, data, 0o644) != nil {
				t.Skip()
			}
		}
		p, _ := LoadDir(dir, nil)
		if p == nil {
			return
		}
		for _, d := range p.Skills {
			if !inside(p.Root, d.Path) {
				t.Fatalf("skill path %s outside %s", d.Path, p.Root)
			}
		}
		for _, d := range p.Agents {
			if !inside(p.Root, d.Path) {
				t.Fatalf("agent path %s outside %s", d.Path, p.Root)
			}
		}
		for _, groups := range p.Hooks {
			for _, g := range groups {
				for _, h := range g.Hooks {
					if strings.Contains(h.Command, "${"+RootVar+"}") {
						t.Fatalf("hook command not expanded: %q", h.Command)
					}
				}
			}
		}
		for _, s := range p.MCPServers {
			if !strings.HasPrefix(s.Name, "plugin:"+p.Name+":") || strings.Contains(s.Config.Command+s.Config.URL+strings.Join(s.Config.Args, " "), "${"+RootVar+"}") {
				t.Fatalf("server %+v", s)
			}
		}
	})
}

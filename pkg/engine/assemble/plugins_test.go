package assemble

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive/commands"
)

// pluginProject writes a project with a marketplace in vendor/mkt, plus a project
// command named like one of the plugin's, and returns it with the settings of the
// user's that enable kit@mkt from that marketplace (given as --settings: a project's own
// settings never run a plugin by themselves, TestProjectSettingsAloneRunNoPlugin).
func pluginProject(t *testing.T, extraSettings string) (dir, settings string) {
	t.Helper()
	dir = t.TempDir()
	settings = `{"enabledPlugins": {"kit@mkt": true, "gone@mkt": true, "off@mkt": false},
			"extraKnownMarketplaces": {"mkt": {"source": {"source": "directory", "path": "` + dir + `/vendor/mkt"}}}` + extraSettings + `}`
	files := map[string]string{
		".claude/commands/notes.md":                  "---\ndescription: project notes\n---\nProject notes $ARGUMENTS\n",
		"vendor/mkt/.claude-plugin/marketplace.json": `{"name": "mkt", "owner": {"name": "o"}, "plugins": [{"name": "kit", "source": "./kit"}, {"name": "off", "source": "./nowhere"}]}`,
		"vendor/mkt/kit/.claude-plugin/plugin.json":  `{"name": "kit", "version": "2.0.0"}`,
		"vendor/mkt/kit/commands/hello.md":           "---\ndescription: kit hello\n---\nKit says hello to $ARGUMENTS\n",
		"vendor/mkt/kit/commands/notes.md":           "---\ndescription: kit notes\n---\nKit notes $ARGUMENTS\n",
		"vendor/mkt/kit/hooks/hooks.json": `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command",
			"command": "echo \"$CLAUDE_PLUGIN_ROOT\" > ${CLAUDE_PLUGIN_ROOT}/../../hook-ran.txt"}]}]}}`,
		"vendor/mkt/kit/.mcp.json": `{"mcpServers": {"srv": {"command": "${CLAUDE_PLUGIN_ROOT}/no-such-server"}}}`,
	}
	for rel, content := range files {
		path := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, settings
}

// A plugin that only the project's own settings enable, from a marketplace inside the
// repository, is neither fetched nor run: the user installs it first (Claude Code
// 2.1.197's print mode does not load it either).
func TestProjectSettingsAloneRunNoPlugin(t *testing.T) {
	dir, settings := pluginProject(t, "")
	if err := os.WriteFile(filepath.Join(dir, ".claude", "settings.json"), []byte(strings.ReplaceAll(settings, dir+"/vendor", "./vendor")), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newTestSession(t, scriptProvider(t, "turns:\n  - text: ok\n"), Options{Cwd: dir})
	sub := s.Subscribe()
	sent, _ := s.Submit("hi")
	until(t, sub, ends(sent.PromptID))
	if _, err := os.Stat(filepath.Join(dir, "vendor", "hook-ran.txt")); err == nil {
		t.Fatal("the plugin's hook ran")
	}
	if _, err := s.ExecuteCommand(context.Background(), "kit:hello", ""); err == nil {
		t.Fatal("the plugin's command is there")
	}
	a := Of(s)
	if len(a.Plugins) == 0 || a.Plugins[len(a.Plugins)-1].Status != "failed" ||
		!strings.Contains(a.Plugins[len(a.Plugins)-1].Error, "robota plugin install kit@mkt") {
		t.Fatalf("plugins = %+v: want kit@mkt not loaded, saying how to install it", a.Plugins)
	}
}

// An enabled plugin's commands answer to /kit:name, and to the bare /name unless the
// project has a command of that name; its hook runs with CLAUDE_PLUGIN_ROOT; its MCP
// server is started as plugin:kit:srv; the enabled plugin the marketplace lacks is a
// warning and a failed status, the disabled one is not looked at.
func TestPluginContributesToTheSession(t *testing.T) {
	dir, settings := pluginProject(t, "")
	s := newTestSession(t, scriptProvider(t, "turns:\n  - text: ok\n    repeat: true\n"), Options{Cwd: dir, Settings: settings})
	a := Of(s)
	root, _ := filepath.EvalSymlinks(filepath.Join(dir, "vendor", "mkt", "kit"))
	if len(a.Plugins) != 2 || a.Plugins[1] != (PluginStatus{ID: "kit@mkt", Name: "kit", Path: root, Status: "loaded"}) ||
		a.Plugins[0].ID != "gone@mkt" || a.Plugins[0].Status != "failed" || !strings.Contains(a.Plugins[0].Error, `no plugin "gone"`) {
		t.Fatalf("plugins = %+v", a.Plugins)
	}
	if !strings.Contains(strings.Join(a.Warnings, "\n"), "plugin gone@mkt not loaded") {
		t.Errorf("warnings = %v", a.Warnings)
	}

	list := s.ListCommands("kit:")
	if len(list) != 2 || list[0].QualifiedName() != "kit:hello" || list[0].Source != "plugin" || list[0].Plugin != "kit" {
		t.Fatalf("ListCommands(kit:) = %+v", list)
	}
	for _, tt := range []struct{ name, want string }{
		{"kit:hello", "Kit says hello to you"},
		{"hello", "Kit says hello to you"},
		{"notes", "Project notes you"},
		{"kit:notes", "Kit notes you"},
	} {
		res, err := s.ExecuteCommand(context.Background(), tt.name, "you")
		if text, _ := res.Data[commands.PromptKey].(string); err != nil || !strings.Contains(text, tt.want) {
			t.Errorf("/%s: %q, %v; want %q", tt.name, text, err, tt.want)
		}
	}

	var srv *MCPServer
	for i := range a.MCPServers {
		if a.MCPServers[i].Name == "plugin:kit:srv" {
			srv = &a.MCPServers[i]
		}
	}
	if srv == nil || srv.Status != "failed" || !strings.Contains(srv.Error, filepath.Join(root, "no-such-server")) {
		t.Errorf("MCP servers = %+v", a.MCPServers)
	}

	sub := s.Subscribe()
	sent, _ := s.Submit("hi")
	until(t, sub, ends(sent.PromptID))
	got, err := os.ReadFile(filepath.Join(dir, "vendor", "hook-ran.txt"))
	if err != nil || strings.TrimSpace(string(got)) != root {
		t.Fatalf("the plugin's hook did not run with CLAUDE_PLUGIN_ROOT: %q, %v", got, err)
	}
}

// disableAllHooks turns a plugin's hooks off too.
func TestDisableAllHooksCoversPluginHooks(t *testing.T) {
	dir, settings := pluginProject(t, `, "disableAllHooks": true`)
	s := newTestSession(t, scriptProvider(t, "turns:\n  - text: ok\n"), Options{Cwd: dir, Settings: settings})
	sub := s.Subscribe()
	sent, _ := s.Submit("hi")
	until(t, sub, ends(sent.PromptID))
	if _, err := os.Stat(filepath.Join(dir, "vendor", "hook-ran.txt")); err == nil {
		t.Fatal("a plugin hook ran under disableAllHooks")
	}
	if _, err := s.ExecuteCommand(context.Background(), "kit:hello", ""); err != nil {
		t.Fatalf("the plugin's commands stay: %v", err)
	}
}

// Options.PluginDirs (--plugin-dir) loads a plugin for the session only, without any
// settings; a directory that is not there is a warning naming it.
func TestPluginDirsLoadForTheSession(t *testing.T) {
	dir := t.TempDir()
	plugin := filepath.Join(t.TempDir(), "dev-kit")
	if err := os.MkdirAll(filepath.Join(plugin, "commands"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(plugin, "commands", "try.md"), []byte("Try $ARGUMENTS\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "nope")
	s := newTestSession(t, scriptProvider(t, "turns:\n  - text: ok\n"), Options{Cwd: dir, PluginDirs: []string{plugin, missing}})
	res, err := s.ExecuteCommand(context.Background(), "dev-kit:try", "it")
	if text, _ := res.Data[commands.PromptKey].(string); err != nil || !strings.Contains(text, "Try it") {
		t.Fatalf("/dev-kit:try = %q, %v", text, err)
	}
	a := Of(s)
	if len(a.Plugins) != 2 || a.Plugins[0].ID != missing || a.Plugins[0].Status != "failed" || a.Plugins[1].ID != "dev-kit" || a.Plugins[1].Status != "loaded" {
		t.Fatalf("plugins = %+v", a.Plugins)
	}
}

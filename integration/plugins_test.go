package integration

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// writeTree writes files (path relative to root → content) below root.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		path := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// pluginMarketplace is a Claude Code marketplace holding the plugin "myplugin": a
// command, an agent and hooks that append to $HOME/plugin-hooks.log through a script
// named with ${CLAUDE_PLUGIN_ROOT}.
func pluginMarketplace() map[string]string {
	return map[string]string{
		".claude-plugin/marketplace.json": `{"name": "local-mkt", "owner": {"name": "tests"},
			"plugins": [{"name": "myplugin", "source": "./plugins/myplugin", "description": "test plugin"}]}`,
		"plugins/myplugin/.claude-plugin/plugin.json": `{"name": "myplugin", "version": "1.0.0", "description": "test plugin"}`,
		"plugins/myplugin/commands/hello.md":          "---\ndescription: Greet someone\nargument-hint: [name]\n---\nSay hello to $ARGUMENTS from the plugin.\n",
		"plugins/myplugin/agents/helper.md":           "---\nname: helper\ndescription: The plugin's helper\n---\nYou are the plugin helper.\n",
		"plugins/myplugin/scripts/record.sh":          "#!/bin/sh\necho \"$1 $CLAUDE_PLUGIN_ROOT\" >> \"$HOME/plugin-hooks.log\"\ncat > /dev/null\n",
		"plugins/myplugin/hooks/hooks.json": `{"hooks": {
			"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "sh ${CLAUDE_PLUGIN_ROOT}/scripts/record.sh UserPromptSubmit"}]}],
			"PreToolUse": [{"matcher": "Agent", "hooks": [{"type": "command", "command": "sh ${CLAUDE_PLUGIN_ROOT}/scripts/record.sh PreToolUse:Agent"}]}]}}`,
	}
}

// enablePlugins writes the user's ~/.claude/settings.json enabling myplugin (and a
// plugin the marketplace does not have) from the marketplace source given. (A project's
// own settings never run a plugin by themselves: TestProjectSettingsAloneRunNoPlugin.)
func enablePlugins(t *testing.T, p *project, source map[string]any) {
	t.Helper()
	settings, _ := json.Marshal(map[string]any{
		"enabledPlugins":         map[string]bool{"myplugin@local-mkt": true, "ghost@local-mkt": true},
		"extraKnownMarketplaces": map[string]any{"local-mkt": map[string]any{"source": source}},
	})
	path := filepath.Join(p.Home, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, settings, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Issue 14 §3: a plugin from a local marketplace, enabled in the settings, contributes a
// command (/myplugin:hello expands into the model's prompt), an agent (the model's Agent
// call with subagent_type myplugin:helper runs it, with its system prompt) and hooks
// (UserPromptSubmit and PreToolUse run the plugin's script, ${CLAUDE_PLUGIN_ROOT}
// expanded and set). The enabled plugin the marketplace lacks is named in a warning and
// the session goes on.
func TestPluginFromLocalMarketplace(t *testing.T) {
	p := newProject(t)
	mkt := filepath.Join(p.Scripts, "mkt")
	writeTree(t, mkt, pluginMarketplace())
	enablePlugins(t, p, map[string]any{"source": "directory", "path": mkt})
	script := p.writeScript(t, "plugin.yaml", `
turns:
  - when: {lastUserContains: "Say hello to world from the plugin."}
    text: "greeted from the plugin command"
  - when: {lastUserContains: "delegate"}
    toolCalls:
      - {id: toolu_agent, name: Agent, input: {description: "plugin help", prompt: "plugin-job", subagent_type: "myplugin:helper"}}
  - when: {lastToolResultContains: "helper done"}
    text: "the plugin agent answered"
agents:
  "myplugin:helper":
    - when: {systemContains: "You are the plugin helper."}
      text: "helper done"
`)
	base := []string{"--provider", "script", "--script", script}
	root, _ := filepath.EvalSymlinks(filepath.Join(mkt, "plugins", "myplugin"))

	res := p.run(t, append([]string{"-p", "/myplugin:hello world", "--output-format", "stream-json", "--verbose"}, base...)...)
	if res.Code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", res.Code, res.Stdout, res.Stderr)
	}
	var init, result map[string]any
	for _, l := range jsonLines(t, res.Stdout) {
		if l["type"] == "system" && l["subtype"] == "init" {
			init = l
		}
		if l["type"] == "result" {
			result = l
		}
	}
	if result == nil || result["result"] != "greeted from the plugin command" {
		t.Fatalf("result = %v\nstderr %s", result, res.Stderr)
	}
	plugins, _ := json.Marshal(init["plugins"])
	if want := `[{"name":"myplugin","path":"` + root + `","source":"myplugin@local-mkt"}]`; string(plugins) != want {
		t.Errorf("init plugins = %s, want %s", plugins, want)
	}
	if !strings.Contains(res.Stderr, "plugin ghost@local-mkt not loaded") || !strings.Contains(res.Stderr, `marketplace "local-mkt" has no plugin "ghost"`) {
		t.Errorf("stderr must name the plugin that did not load: %s", res.Stderr)
	}

	// Without --verbose the failed plugin is still named.
	res = p.run(t, append([]string{"-p", "delegate"}, base...)...)
	if res.Code != 0 || strings.TrimSpace(res.Stdout) != "the plugin agent answered" {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", res.Code, res.Stdout, res.Stderr)
	}
	if !strings.Contains(res.Stderr, "plugin ghost@local-mkt not loaded") {
		t.Errorf("stderr without --verbose: %s", res.Stderr)
	}
	log, err := os.ReadFile(filepath.Join(p.Home, "plugin-hooks.log"))
	if err != nil {
		t.Fatal(err)
	}
	want := "UserPromptSubmit " + root + "\nUserPromptSubmit " + root + "\nPreToolUse:Agent " + root + "\n"
	if string(log) != want {
		t.Errorf("hook log = %q, want %q", log, want)
	}
}

// A marketplace given as a git URL is cloned with go-git (no git binary in robota) into
// ~/.robota/plugins/marketplaces/NAME on first use, and read from there afterwards.
func TestPluginFromGitMarketplace(t *testing.T) {
	p := newProject(t)
	repo := filepath.Join(p.Scripts, "mkt-repo")
	writeTree(t, repo, pluginMarketplace())
	gitInit(t, repo)
	enablePlugins(t, p, map[string]any{"source": "git", "url": "file://" + repo})
	script := p.writeScript(t, "plugin.yaml", `
turns:
  - when: {lastUserContains: "Say hello to git from the plugin."}
    text: "greeted through git"
    repeat: true
`)
	for i := 0; i < 2; i++ {
		res := p.run(t, "-p", "/myplugin:hello git", "--provider", "script", "--script", script)
		if res.Code != 0 || strings.TrimSpace(res.Stdout) != "greeted through git" {
			t.Fatalf("run %d: exit %d\nstdout %s\nstderr %s", i, res.Code, res.Stdout, res.Stderr)
		}
		if i == 0 { // the second run must not need the repository
			if err := os.Rename(repo, repo+".gone"); err != nil {
				t.Fatal(err)
			}
		}
	}
	clone := filepath.Join(p.Home, ".robota", "plugins", "marketplaces", "local-mkt")
	if _, err := os.Stat(filepath.Join(clone, "plugins", "myplugin", "commands", "hello.md")); err != nil {
		t.Fatalf("no clone in %s: %v", clone, err)
	}
	if _, err := os.Stat(filepath.Join(clone, ".git")); err != nil {
		t.Errorf("the clone is not a git repository: %v", err)
	}
}

// robota plugin: a marketplace added by command, a plugin installed from it into the
// user's store (a copy, enabled in ~/.robota/settings.json) loads in a session from its
// copy; disabled in the project's settings it is gone from that project; uninstalled,
// its copy is gone.
func TestPluginCommands(t *testing.T) {
	p := newProject(t)
	mkt := filepath.Join(p.Scripts, "mkt")
	writeTree(t, mkt, pluginMarketplace())
	script := p.writeScript(t, "plugin.yaml", `
turns:
  - when: {lastUserContains: "Say hello to cli from the plugin."}
    text: "greeted after install"
    repeat: true
`)
	ask := []string{"-p", "/myplugin:hello cli", "--provider", "script", "--script", script}

	out := p.mustRun(t, "plugin", "marketplace", "add", mkt).Stdout
	if !strings.Contains(out, "Added marketplace local-mkt") {
		t.Fatalf("add: %s", out)
	}
	if out := p.mustRun(t, "plugin", "search", "TEST").Stdout; !regexpMatch(`myplugin@local-mkt\s+-\s+test plugin`, out) {
		t.Errorf("search:\n%s", out)
	}
	if out := p.mustRun(t, "plugin", "validate", mkt).Stdout; !strings.Contains(out, "plugin myplugin 1.0.0: 1 command/skill paths, 1 agent paths, 2 hook groups, 0 MCP servers") {
		t.Errorf("validate:\n%s", out)
	}
	out = p.mustRun(t, "plugin", "install", "myplugin@local-mkt").Stdout
	copyDir := filepath.Join(p.Home, ".robota", "plugins", "cache", "local-mkt", "myplugin", "1.0.0")
	if !strings.Contains(out, "Installed myplugin@local-mkt 1.0.0 in "+copyDir) {
		t.Fatalf("install: %s", out)
	}
	// The session reads the copy: the marketplace may change or go away.
	if err := os.RemoveAll(filepath.Join(mkt, "plugins")); err != nil {
		t.Fatal(err)
	}
	if res := p.mustRun(t, ask...); strings.TrimSpace(res.Stdout) != "greeted after install" {
		t.Fatalf("after install: %+v", res)
	}
	list := p.mustRun(t, "plugin", "list").Stdout
	if !regexpMatch(`myplugin@local-mkt\s+true\s+user 1\.0\.0\s+loads`, list) {
		t.Errorf("list:\n%s", list)
	}

	p.mustRun(t, "plugin", "disable", "myplugin@local-mkt", "--scope", "project")
	if res := p.run(t, ask...); res.Code != 1 || !strings.Contains(res.Stdout, "Unknown command: /myplugin:hello") {
		t.Fatalf("disabled in the project: %+v", res)
	}
	p.mustRun(t, "plugin", "uninstall", "myplugin@local-mkt")
	if _, err := os.Stat(copyDir); !os.IsNotExist(err) {
		t.Fatalf("the copy is still there: %v", err)
	}
	if res := p.run(t, "plugin", "install", "nope@local-mkt"); res.Code != 1 || !strings.Contains(res.Stderr, `marketplace "local-mkt" has no plugin "nope"`) {
		t.Fatalf("install of an unknown plugin: %+v", res)
	}
}

func regexpMatch(pattern, s string) bool { return regexp.MustCompile(pattern).MatchString(s) }

// A plugin's MCP server (.mcp.json in the plugin, its command named with
// ${CLAUDE_PLUGIN_ROOT}) starts with the session as plugin:myplugin:srv and the model
// calls its tool as mcp__plugin_myplugin_srv__echo.
func TestPluginMCPServer(t *testing.T) {
	server := buildMCPServer(t)
	p := newProject(t)
	mkt := filepath.Join(p.Scripts, "mkt")
	files := pluginMarketplace()
	files["plugins/myplugin/.mcp.json"] = `{"mcpServers": {"srv": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/server"}}}`
	writeTree(t, mkt, files)
	data, err := os.ReadFile(server)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(mkt, "plugins/myplugin/bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mkt, "plugins/myplugin/bin/server"), data, 0o755); err != nil {
		t.Fatal(err)
	}
	enablePlugins(t, p, map[string]any{"source": "directory", "path": mkt})
	script := p.writeScript(t, "plugin-mcp.yaml", `
turns:
  - toolCalls:
      - {id: toolu_echo, name: mcp__plugin_myplugin_srv__echo, input: {text: "from the plugin"}}
  - when: {lastToolResultContains: "echo: from the plugin"}
    text: "the plugin server echoed"
  - text: "no echo"
`)
	res := p.mustRun(t, "-p", "use it", "--provider", "script", "--script", script, "--output-format", "stream-json", "--verbose",
		"--allowedTools", "mcp__plugin_myplugin_srv__echo")
	var init, result map[string]any
	for _, l := range jsonLines(t, res.Stdout) {
		if l["type"] == "system" && l["subtype"] == "init" {
			init = l
		}
		if l["type"] == "result" {
			result = l
		}
	}
	servers, _ := json.Marshal(init["mcp_servers"])
	if string(servers) != `[{"name":"plugin:myplugin:srv","status":"connected"}]` {
		t.Errorf("init mcp_servers = %s\nstderr %s", servers, res.Stderr)
	}
	if result == nil || result["result"] != "the plugin server echoed" {
		t.Fatalf("result = %v", result)
	}
}

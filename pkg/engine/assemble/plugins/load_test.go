package plugins

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/hook"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/agentdef"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/skills"
)

func marketDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("testdata/market")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// loadOne loads the single enabled plugin id of the fixture marketplace.
func loadOne(t *testing.T, id string) Result {
	t.Helper()
	return Load(context.Background(), Options{Cwd: t.TempDir(), Home: t.TempDir(), Enabled: map[string]bool{id: true},
		Declared: map[string]DeclaredMarketplace{"local-mkt": {Source: MarketplaceSource{Kind: KindDirectory, Path: marketDir(t)}}}})
}

func TestLoadFromLocalMarketplace(t *testing.T) {
	tests := []struct {
		id string
		// loaded says the plugin loads; problem is a substring every problem list must
		// hold (one problem at least), err the sentinel it wraps.
		loaded  bool
		problem string
		err     error
	}{
		{id: "hello@local-mkt", loaded: true},
		{id: "broken@local-mkt", problem: "plugin.json", err: ErrManifest},
		{id: "paths@local-mkt", loaded: true, problem: `"../../../../etc/passwd"`, err: ErrEscape},
		{id: "badhooks@local-mkt", loaded: true, problem: "hooks left out", err: ErrComponent},
		{id: "nomanifest@local-mkt", loaded: true},
		{id: "noname@local-mkt", problem: `missing required "name"`, err: ErrManifest},
		{id: "escape@local-mkt", problem: "../../outside", err: ErrEscape},
		{id: "missing-dir@local-mkt", problem: "does-not-exist", err: ErrNotFound},
		{id: "npm-one@local-mkt", problem: "npm", err: ErrUnsupported},
		{id: "absent@local-mkt", problem: `has no plugin "absent"`, err: ErrNotFound},
		{id: "hello@unknown-mkt", problem: `marketplace "unknown-mkt" is not known`, err: ErrNotFound},
		{id: "hello", problem: "want name@marketplace", err: ErrBadID},
		{id: "../x@local-mkt", problem: "name", err: ErrBadID},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			res := loadOne(t, tt.id)
			if got := len(res.Plugins) == 1; got != tt.loaded {
				t.Fatalf("loaded = %v, want %v (problems: %v)", got, tt.loaded, res.Problems)
			}
			// The marketplace's own malformed entries are reported with the first plugin.
			var own []Problem
			for _, p := range res.Problems {
				if p.Plugin == "" {
					if p.Marketplace != "local-mkt" || !strings.HasPrefix(p.Error(), "marketplace local-mkt (") {
						t.Errorf("a marketplace problem must name the marketplace: %v", p)
					}
					continue
				}
				if p.Plugin != tt.id {
					t.Errorf("problem names %q, want %q: %v", p.Plugin, tt.id, p)
				}
				own = append(own, p)
			}
			if tt.problem == "" {
				if len(own) > 0 {
					t.Fatalf("unexpected problems: %v", own)
				}
				return
			}
			found := false
			for _, p := range own {
				if strings.Contains(p.Error(), tt.problem) && errors.Is(p, tt.err) {
					found = true
				}
				if !strings.Contains(p.Error(), tt.id) {
					t.Errorf("problem does not name the plugin: %v", p)
				}
			}
			if !found {
				t.Fatalf("no problem with %q wrapping %v in %v", tt.problem, tt.err, own)
			}
		})
	}
}

func TestMarketplaceEntryProblemsAreReported(t *testing.T) {
	res := loadOne(t, "hello@local-mkt")
	var got []string
	for _, p := range res.Problems {
		got = append(got, p.Error())
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{`plugins[9]`, `"bad name"`, `plugins[10] (nosource): missing "source"`, `plugins[11]: "hello" is listed twice`} {
		if !strings.Contains(all, want) {
			t.Errorf("problems lack %q:\n%s", want, all)
		}
	}
	if len(res.Plugins) != 1 || res.Plugins[0].Root != filepath.Join(marketDir(t), "plugins", "hello") {
		t.Fatalf("the first hello entry must win: %+v", res.Plugins)
	}
}

func TestHelloContributions(t *testing.T) {
	res := loadOne(t, "hello@local-mkt")
	if len(res.Plugins) != 1 {
		t.Fatalf("not loaded: %v", res.Problems)
	}
	p := res.Plugins[0]
	root := p.Root
	if p.ID != "hello@local-mkt" || p.Name != "hello" || p.Marketplace != "local-mkt" || p.Manifest.Version != "1.0.0" || p.Manifest.Author.Name != "Ada" {
		t.Errorf("plugin = %+v", p)
	}

	cat, problems := skills.Load(p.Skills)
	if len(problems) > 0 {
		t.Fatalf("skill problems: %v", problems)
	}
	var names []string
	for _, s := range cat.List() {
		names = append(names, s.Name)
		if s.Plugin != "hello" || s.Source != skills.SourcePlugin {
			t.Errorf("skill %s: plugin %q source %q", s.Name, s.Plugin, s.Source)
		}
	}
	if want := []string{"hello:explain", "hello:greet", "hello:sub:deep"}; !slices.Equal(names, want) {
		t.Errorf("skills = %v, want %v", names, want)
	}
	greet, _ := cat.Lookup("hello:greet")
	if text := skills.Expand(greet, "Ada", skills.ExpandOptions{}); !strings.Contains(text, "Say hello to Ada.\nThe greeting list is in "+root+"/greetings.txt.") {
		t.Errorf("expanded = %q", text)
	}

	agents, aproblems := agentdef.Load(p.Agents)
	if len(aproblems) > 0 {
		t.Fatalf("agent problems: %v", aproblems)
	}
	rev, ok := agents.Lookup("hello:reviewer")
	if !ok {
		t.Fatalf("no hello:reviewer in %v", agents.Names())
	}
	if rev.PermissionMode != "" || rev.Source != agentdef.SourcePlugin || !slices.Equal(rev.Tools, []string{"Read", "Grep"}) {
		t.Errorf("reviewer = %+v (a plugin agent must not choose its permission mode)", rev)
	}
	plain, ok := agents.Lookup("hello:plain")
	if !ok || plain.Description != "Agent from hello plugin" {
		t.Errorf("plain = %+v, %v", plain, ok)
	}

	groups := p.Hooks[hook.PreToolUse]
	if len(groups) != 1 || groups[0].Matcher != "Write|Edit" || len(groups[0].Hooks) != 1 {
		t.Fatalf("hooks = %+v", p.Hooks)
	}
	h := groups[0].Hooks[0]
	if h.Command != root+"/scripts/log.sh" || !slices.Equal(h.Env, []string{"CLAUDE_PLUGIN_ROOT=" + root}) || h.Timeout != 5 {
		t.Errorf("hook = %+v", h)
	}

	if len(p.MCPServers) != 1 {
		t.Fatalf("mcp = %+v", p.MCPServers)
	}
	s := p.MCPServers[0]
	if s.Name != "plugin:hello:echo" || s.Config.Command != root+"/bin/echo" ||
		!slices.Equal(s.Config.Args, []string{"--root", root, "--home", "none"}) ||
		s.Config.Env["CLAUDE_PLUGIN_ROOT"] != root || s.Config.Env["MODE"] != "test" {
		t.Errorf("server = %+v", s)
	}
}

func TestManifestPathsReplaceDefaults(t *testing.T) {
	res := loadOne(t, "paths@local-mkt")
	if len(res.Plugins) != 1 {
		t.Fatalf("not loaded: %v", res.Problems)
	}
	p := res.Plugins[0]
	cat, _ := skills.Load(p.Skills)
	var names []string
	for _, s := range cat.List() {
		names = append(names, s.Name)
	}
	if want := []string{"paths:one", "paths:skill-one"}; !slices.Equal(names, want) {
		t.Errorf("skills = %v, want %v", names, want)
	}
	agents, _ := agentdef.Load(p.Agents)
	if _, ok := agents.Lookup("paths:helper"); !ok {
		t.Errorf("no paths:helper in %v", agents.Names())
	}
	if g := p.Hooks[hook.Stop]; len(g) != 1 || g[0].Hooks[0].Command != "echo stop from "+p.Root {
		t.Errorf("inline hooks = %+v", p.Hooks)
	}
	if len(p.MCPServers) != 1 || p.MCPServers[0].Name != "plugin:paths:inline" || p.MCPServers[0].Config.Type != "http" {
		t.Errorf("inline servers = %+v", p.MCPServers)
	}
	var missing bool
	for _, pr := range res.Problems {
		if strings.Contains(pr.Error(), "custom/missing.md") && errors.Is(pr, ErrNotFound) && !pr.Skipped {
			missing = true
		}
	}
	if !missing {
		t.Errorf("a missing manifest path must be a problem: %v", res.Problems)
	}
}

func TestStrictFalseEntryStandsForManifest(t *testing.T) {
	res := loadOne(t, "nomanifest@local-mkt")
	if len(res.Plugins) != 1 {
		t.Fatalf("not loaded: %v", res.Problems)
	}
	cat, _ := skills.Load(res.Plugins[0].Skills)
	if _, ok := cat.Lookup("nomanifest:solo"); !ok {
		t.Errorf("no nomanifest:solo in %v", cat.List())
	}
}

func TestBadHooksLeaveTheRestLoaded(t *testing.T) {
	res := loadOne(t, "badhooks@local-mkt")
	if len(res.Plugins) != 1 {
		t.Fatalf("not loaded: %v", res.Problems)
	}
	p := res.Plugins[0]
	if len(p.Hooks) != 0 {
		t.Errorf("a malformed hooks file must be left out whole: %+v", p.Hooks)
	}
	cat, _ := skills.Load(p.Skills)
	if _, ok := cat.Lookup("badhooks:ok"); !ok {
		t.Errorf("the plugin's command must still load")
	}
}

func TestSymlinkOutOfThePluginIsRejected(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.md"), []byte("---\ndescription: x\n---\nsecret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(t.TempDir(), "linky")
	for _, d := range []string{".claude-plugin", "hooks"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(root, ".claude-plugin", "plugin.json"), `{"name": "linky", "agents": ["./out.md"]}`)
	for link, target := range map[string]string{"commands": outside, "out.md": filepath.Join(outside, "secret.md"),
		"hooks/hooks.json": filepath.Join(outside, "hooks.json")} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(outside, "hooks.json"), `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`)
	p, problems := LoadDir(root, nil)
	if p == nil {
		t.Fatalf("not loaded: %v", problems)
	}
	if len(p.Skills) != 0 || len(p.Agents) != 0 || len(p.Hooks) != 0 {
		t.Errorf("links out of the plugin were followed: skills %v agents %v hooks %v", p.Skills, p.Agents, p.Hooks)
	}
	escapes := 0
	for _, pr := range problems {
		if errors.Is(pr, ErrEscape) {
			escapes++
		}
	}
	if escapes != 3 {
		t.Errorf("want 3 escape problems, got %v", problems)
	}
}

func TestPluginDirWithoutManifestIsNamedByItsDirectory(t *testing.T) {
	root := filepath.Join(t.TempDir(), "quick-tools")
	write(t, filepath.Join(root, "commands", "go.md"), "Go!\n")
	res := Load(context.Background(), Options{Home: t.TempDir(), Dirs: []string{root}})
	if len(res.Plugins) != 1 || res.Plugins[0].Name != "quick-tools" || res.Plugins[0].ID != "quick-tools" {
		t.Fatalf("res = %+v", res)
	}
}

func TestDisabledPluginIsNotLoaded(t *testing.T) {
	res := Load(context.Background(), Options{Cwd: t.TempDir(), Home: t.TempDir(), Enabled: map[string]bool{"hello@local-mkt": false},
		Declared: map[string]DeclaredMarketplace{"local-mkt": {Source: MarketplaceSource{Kind: KindDirectory, Path: marketDir(t)}}}})
	if len(res.Plugins) != 0 || len(res.Problems) != 0 {
		t.Fatalf("res = %+v", res)
	}
}

func TestRelativeDirectoryIsReadAgainstItsBase(t *testing.T) {
	base := filepath.Dir(marketDir(t))
	res := Load(context.Background(), Options{Cwd: t.TempDir(), Home: t.TempDir(), Enabled: map[string]bool{"hello@local-mkt": true},
		Declared: map[string]DeclaredMarketplace{"local-mkt": {Source: MarketplaceSource{Kind: KindFile, Path: "market/.claude-plugin/marketplace.json"}, Base: base}}})
	if len(res.Plugins) != 1 {
		t.Fatalf("not loaded: %v", res.Problems)
	}
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestFilesLinkedOutOfThePluginAreSkipped(t *testing.T) {
	outside := t.TempDir()
	write(t, filepath.Join(outside, "secret.md"), "---\ndescription: secret\n---\nsecret\n")
	write(t, filepath.Join(outside, "skill", "SKILL.md"), "---\ndescription: secret skill\n---\nsecret\n")
	root := filepath.Join(t.TempDir(), "inner")
	write(t, filepath.Join(root, ".claude-plugin", "plugin.json"), `{"name": "inner"}`)
	write(t, filepath.Join(root, "commands", "ok.md"), "---\ndescription: ok\n---\nok\n")
	write(t, filepath.Join(root, "agents", "ok.md"), "---\ndescription: ok\n---\nok\n")
	if err := os.MkdirAll(filepath.Join(root, "skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"commands/leak.md": "secret.md", "agents/leak.md": "secret.md", "skills/leak": "skill"} {
		if err := os.Symlink(filepath.Join(outside, target), filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	p, problems := LoadDir(root, nil)
	if p == nil || len(problems) > 0 {
		t.Fatalf("plugin %v, problems %v", p, problems)
	}
	cat, sproblems := skills.Load(p.Skills)
	var names []string
	for _, s := range cat.List() {
		names = append(names, s.Name)
	}
	if !slices.Equal(names, []string{"inner:ok"}) || len(sproblems) != 2 {
		t.Errorf("skills %v, problems %v", names, sproblems)
	}
	agents, aproblems := agentdef.Load(p.Agents)
	if _, ok := agents.Lookup("inner:leak"); ok || len(aproblems) != 1 || !strings.Contains(aproblems[0].Error(), "outside") {
		t.Errorf("agents %v, problems %v", agents.Names(), aproblems)
	}
}

// A user's Claude Code setup works as it is: a marketplace added with `claude plugin
// marketplace add` (~/.claude/plugins/known_marketplaces.json) and a plugin installed by
// Claude Code (installed_plugins.json, version 2) load from Claude Code's copies, and
// nothing is written into ~/.claude.
func TestClaudeCodeInstallationsAreRead(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	claude := filepath.Join(home, ".claude", "plugins")
	copyDir := filepath.Join(claude, "cache", "local-mkt", "tool", "0.1.0")
	for p, data := range pluginFiles("", "tool") {
		write(t, filepath.Join(copyDir, p), data)
	}
	write(t, filepath.Join(claude, KnownMarketplacesFile), `{"local-mkt": {"source": {"source": "directory", "path": "`+marketDir(t)+`"},
		"installLocation": "`+marketDir(t)+`", "lastUpdated": "2026-01-01T00:00:00.000Z"}}`)
	write(t, filepath.Join(claude, InstalledFile), `{"version": 2, "plugins": {
		"tool@local-mkt": [{"scope": "project", "projectPath": "/elsewhere", "installPath": "/nonexistent"},
		                   {"scope": "user", "installPath": "`+copyDir+`", "version": "0.1.0"}]}}`)
	before, _ := os.ReadFile(filepath.Join(claude, InstalledFile))
	res := Load(context.Background(), Options{Cwd: cwd, Home: home, Enabled: map[string]bool{"tool@local-mkt": true, "hello@local-mkt": true}})
	if len(res.Plugins) != 2 {
		t.Fatalf("plugins = %+v, problems %v", res.Plugins, res.Problems)
	}
	byName := map[string]string{}
	for _, p := range res.Plugins {
		byName[p.Name] = p.Root
	}
	if want, _ := filepath.EvalSymlinks(copyDir); byName["tool"] != want {
		t.Errorf("tool loaded from %s, want Claude Code's copy %s", byName["tool"], want)
	}
	if byName["hello"] != filepath.Join(marketDir(t), "plugins", "hello") {
		t.Errorf("hello loaded from %s", byName["hello"])
	}
	if after, _ := os.ReadFile(filepath.Join(claude, InstalledFile)); string(after) != string(before) {
		t.Error("Claude Code's registry was written")
	}
}

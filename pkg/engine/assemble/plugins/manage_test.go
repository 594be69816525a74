package plugins

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseSourceArg(t *testing.T) {
	cwd, home := t.TempDir(), t.TempDir()
	write(t, filepath.Join(cwd, "m", MarketplacePath), `{}`)
	write(t, filepath.Join(home, "hm", "notes.txt"), "x")
	tests := []struct {
		arg  string
		want MarketplaceSource
		err  string
	}{
		{arg: "./m", want: MarketplaceSource{Kind: KindDirectory, Path: filepath.Join(cwd, "m")}},
		{arg: "m", want: MarketplaceSource{Kind: KindDirectory, Path: filepath.Join(cwd, "m")}},
		{arg: "./m/.claude-plugin/marketplace.json", want: MarketplaceSource{Kind: KindFile, Path: filepath.Join(cwd, "m", MarketplacePath)}},
		{arg: "~/hm", want: MarketplaceSource{Kind: KindDirectory, Path: filepath.Join(home, "hm")}},
		{arg: "~/hm/notes.txt", err: "want a directory or a marketplace.json"},
		{arg: "./missing", err: "not found"},
		{arg: "https://example.com/x/mkt.git#v1", want: MarketplaceSource{Kind: KindGit, URL: "https://example.com/x/mkt.git", Ref: "v1"}},
		{arg: "git@github.com:acme/mkt.git", want: MarketplaceSource{Kind: KindGit, URL: "git@github.com:acme/mkt.git"}},
		{arg: "file:///srv/mkt", want: MarketplaceSource{Kind: KindGit, URL: "file:///srv/mkt"}},
		{arg: "acme/plugins#main", want: MarketplaceSource{Kind: KindGitHub, Repo: "acme/plugins", Ref: "main"}},
		{arg: "https://example.com/marketplace.json", err: "not supported"},
		{arg: "just words", err: "is not a directory"},
	}
	for _, tt := range tests {
		got, err := ParseSourceArg(tt.arg, cwd, home)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err = %v, want %q", tt.arg, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s: %+v, %v; want %+v", tt.arg, got, err, tt.want)
		}
	}
}

func fixedNow() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

func TestInstallFromAddedMarketplaceThenUninstall(t *testing.T) {
	cwd, home := t.TempDir(), t.TempDir()
	m := Manager{Opts: Options{Cwd: cwd, Home: home, Now: fixedNow}}
	name, err := m.AddMarketplace(context.Background(), MarketplaceSource{Kind: KindDirectory, Path: marketDir(t)})
	if err != nil || name != "local-mkt" {
		t.Fatalf("add = %q, %v", name, err)
	}
	if _, err := m.AddMarketplace(context.Background(), MarketplaceSource{Kind: KindDirectory, Path: marketDir(t)}); err == nil {
		t.Fatal("adding a known marketplace again must fail")
	}
	for _, scope := range []string{ScopeUser, ScopeProject} {
		inst, problems, err := m.Install(context.Background(), "hello@local-mkt", scope)
		if err != nil {
			t.Fatalf("%s install: %v", scope, err)
		}
		st := m.Store(scope)
		if want := filepath.Join(st.Dir, "cache", "local-mkt", "hello", "1.0.0"); inst.InstallPath != want || inst.Version != "1.0.0" ||
			inst.InstalledAt != "2026-01-02T03:04:05.000Z" {
			t.Errorf("%s installation = %+v", scope, inst)
		}
		for _, p := range problems { // only the fixture marketplace's malformed entries
			if !strings.Contains(p.Error(), "plugins[") {
				t.Errorf("%s: unexpected problem %v", scope, p)
			}
		}
		if _, err := os.Stat(filepath.Join(inst.InstallPath, "commands", "greet.md")); err != nil {
			t.Errorf("%s: not copied: %v", scope, err)
		}
		settings, _ := SettingsPath(scope, cwd, home)
		data, _ := os.ReadFile(settings)
		if !strings.Contains(string(data), `"hello@local-mkt": true`) {
			t.Errorf("%s settings = %s", scope, data)
		}
	}

	// The installed copy is what loads, the project's before the user's.
	res := Load(context.Background(), Options{Cwd: cwd, Home: home, Enabled: map[string]bool{"hello@local-mkt": true}})
	if len(res.Plugins) != 1 || !strings.HasPrefix(res.Plugins[0].Root, filepath.Join(cwd, ".robota", "plugins", "cache")) {
		t.Fatalf("loaded = %+v, %v", res.Plugins, res.Problems)
	}

	if err := m.Uninstall("hello@local-mkt", ScopeProject); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(cwd, ".robota", "plugins", "cache", "local-mkt", "hello", "1.0.0")); !os.IsNotExist(err) {
		t.Errorf("the project copy is still there: %v", err)
	}
	data, _ := os.ReadFile(filepath.Join(cwd, ".robota", "settings.json"))
	if strings.Contains(string(data), "hello@local-mkt") {
		t.Errorf("project settings still enable it: %s", data)
	}
	res = Load(context.Background(), Options{Cwd: cwd, Home: home, Enabled: map[string]bool{"hello@local-mkt": true}})
	if len(res.Plugins) != 1 || !strings.HasPrefix(res.Plugins[0].Root, filepath.Join(home, ".robota", "plugins", "cache")) {
		t.Fatalf("after the project uninstall the user's copy loads: %+v", res.Plugins)
	}
	if err := m.Uninstall("hello@local-mkt", ScopeProject); err == nil {
		t.Error("uninstalling twice must fail")
	}
	if _, _, err := m.Install(context.Background(), "broken@local-mkt", ScopeUser); err == nil || !strings.Contains(err.Error(), "plugin.json") {
		t.Errorf("a plugin that does not load must not install: %v", err)
	}
}

func TestAddGitMarketplaceThenRemove(t *testing.T) {
	files := pluginFiles("tool/", "tool")
	files[MarketplacePath] = `{"name": "gm", "owner": {"name": "o"}, "plugins": [{"name": "tool", "source": "./tool"}]}`
	repo := gitRepo(t, files)
	cwd, home := t.TempDir(), t.TempDir()
	m := Manager{Opts: Options{Cwd: cwd, Home: home, Cloner: inProcess{}}}
	name, err := m.AddMarketplace(context.Background(), MarketplaceSource{Kind: KindGit, URL: repo})
	if err != nil || name != "gm" {
		t.Fatalf("add = %q, %v", name, err)
	}
	clone := filepath.Join(home, ".robota", "plugins", "marketplaces", "gm")
	if _, err := os.Stat(filepath.Join(clone, "tool", "commands", "hi.md")); err != nil {
		t.Fatal(err)
	}
	if err := m.UpdateMarketplace(context.Background(), "gm"); err != nil {
		t.Fatalf("update: %v", err)
	}
	res := Load(context.Background(), Options{Cwd: cwd, Home: home, Enabled: map[string]bool{"tool@gm": true}})
	if len(res.Plugins) != 1 {
		t.Fatalf("not loaded from the added marketplace: %v", res.Problems)
	}
	if err := m.RemoveMarketplace("gm"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(clone); !os.IsNotExist(err) {
		t.Errorf("clone kept: %v", err)
	}
	if known, _ := UserStore(home).KnownMarketplaces(); len(known) != 0 {
		t.Errorf("known = %v", known)
	}
}

func TestSetEnabledKeepsOtherKeys(t *testing.T) {
	path := filepath.Join(t.TempDir(), "settings.json")
	write(t, path, `{"model": "opus", "enabledPlugins": {"a@m": true}, "permissions": {"allow": ["Read"]}}`)
	off := false
	if err := SetEnabled(path, "b@m", &off); err != nil {
		t.Fatal(err)
	}
	if err := SetEnabled(path, "a@m", nil); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if doc["model"] != "opus" || doc["permissions"] == nil {
		t.Errorf("other keys lost: %s", data)
	}
	if ep, _ := json.Marshal(doc["enabledPlugins"]); string(ep) != `{"b@m":false}` {
		t.Errorf("enabledPlugins = %s", ep)
	}
	write(t, path, `[1, 2]`)
	if err := SetEnabled(path, "a@m", &off); err == nil {
		t.Error("a settings file that is not an object must not be overwritten")
	}
	if data, _ := os.ReadFile(path); string(data) != "[1, 2]" {
		t.Errorf("file changed: %s", data)
	}
}

func TestInstalledReadsClaudeCodeVersion1(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, InstalledFile), `{"version": 1, "plugins": {"a@m": {"version": "1.0.0", "installedAt": "x", "installPath": "/p"}}}`)
	got, err := (Store{Dir: dir, Scope: ScopeUser}).Installed()
	if err != nil || len(got.Plugins["a@m"]) != 1 || got.Plugins["a@m"][0].InstallPath != "/p" {
		t.Fatalf("installed = %+v, %v", got, err)
	}
}

func TestSearch(t *testing.T) {
	m := Manager{Opts: Options{Cwd: t.TempDir(), Home: t.TempDir(), Declared: map[string]DeclaredMarketplace{
		"local-mkt": {Source: MarketplaceSource{Kind: KindDirectory, Path: marketDir(t)}},
		"gone":      {Source: MarketplaceSource{Kind: KindDirectory, Path: "/nonexistent/mkt"}},
	}}}
	found, problems := m.Search(context.Background(), "GREETS")
	if len(found) != 1 || found[0].ID() != "hello@local-mkt" {
		t.Errorf("found = %+v", found)
	}
	if len(problems) != 1 || problems[0].Marketplace != "gone" {
		t.Errorf("problems = %v", problems)
	}
	if all, _ := m.Search(context.Background(), ""); len(all) != 9 {
		t.Errorf("all = %d entries, want the fixture's 9 valid ones", len(all))
	}
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
)

// runSDKLayer shows the SDK layer on a scratch copy of examples/demo with the
// .claude/ files of examples/sdk-layer: a custom command the user runs, a skill the
// model loads with the Skill tool, and /rewind taking the model's edits back after a
// resume. It returns the next step number.
func runSDKLayer(bin, examples string, first int) (int, error) {
	tmp, dir, err := scratchProject(examples, "robota-demo-sdk-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	if err := os.CopyFS(filepath.Join(dir, ".claude"), os.DirFS(filepath.Join(examples, "sdk-layer", ".claude"))); err != nil {
		return 0, fmt.Errorf("copy examples/sdk-layer/.claude: %w", err)
	}
	script, err := renderScript(filepath.Join(examples, "demo-sdk.script.yaml"), tmp, dir)
	if err != nil {
		return 0, err
	}
	robota := func(args ...string) (string, error) {
		cmd := exec.Command(filepath.Join(bin, "robota"), append(args, "--provider", "script", "--script", script)...)
		cmd.Dir = dir
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			return stdout.String(), fmt.Errorf("robota %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
		}
		return stdout.String(), nil
	}
	original, err := os.ReadFile(filepath.Join(dir, "wordstats.go"))
	if err != nil {
		return 0, err
	}

	step(first, "A custom command from .claude/commands: the user's /review expands into the model's prompt")
	say("robota -p \"/review wordstats.go\" --output-format stream-json   (.claude/commands/review.md: \"Review $ARGUMENTS: …\")")
	out, err := robota("-p", "/review wordstats.go", "--output-format", "stream-json")
	if err != nil {
		return 0, err
	}
	id, err := render(strings.NewReader(out))
	if err != nil {
		return 0, err
	}
	prompt, err := firstUserText(filepath.Join(dir, ".robota", "sessions", id+".jsonl"), id)
	if err != nil {
		return 0, err
	}
	say("the prompt the model got (from the session journal): %q", prompt)

	step(first+1, "A skill from .claude/skills: the model sees it listed and loads it with the Skill tool")
	say("robota -p \"Fix CountWords and release 1.1\" --permission-mode acceptEdits --output-format stream-json")
	if out, err = robota("-p", "Fix CountWords and release 1.1", "--permission-mode", "acceptEdits", "--output-format", "stream-json"); err != nil {
		return 0, err
	}
	if id, err = render(strings.NewReader(out)); err != nil {
		return 0, err
	}
	changelog, err := os.ReadFile(filepath.Join(dir, "CHANGELOG.md"))
	if err != nil {
		return 0, fmt.Errorf("the skill's CHANGELOG.md was not written: %w", err)
	}
	say("CHANGELOG.md now begins %q; wordstats.go uses strings.Fields", firstLine(string(changelog)))

	step(first+2, "Edit checkpoints: a later run resumes the session and /rewind takes the edits back")
	say("robota -p \"/rewind list\" --resume %s", id)
	if out, err = robota("-p", "/rewind list", "--resume", id); err != nil {
		return 0, err
	}
	sayLines(out)
	m := regexp.MustCompile(`(?m)^(\S+)  .*"Fix CountWords and release 1\.1"`).FindStringSubmatch(out)
	if m == nil {
		return 0, errors.New("/rewind list does not list the release prompt's checkpoint")
	}
	say("robota -p \"/rewind code %s\" --resume %s", m[1], id)
	if out, err = robota("-p", "/rewind code "+m[1], "--resume", id); err != nil {
		return 0, err
	}
	sayLines(out)
	now, err := os.ReadFile(filepath.Join(dir, "wordstats.go"))
	if err != nil {
		return 0, err
	}
	if _, err := os.Stat(filepath.Join(dir, "CHANGELOG.md")); !errors.Is(err, os.ErrNotExist) || !bytes.Equal(now, original) {
		return 0, fmt.Errorf("rewind did not restore the project (CHANGELOG.md: %v; wordstats.go restored: %v)", err, bytes.Equal(now, original))
	}
	say("CHANGELOG.md is gone and wordstats.go is byte-for-byte the original again")

	step(first+3, "A plugin from a local marketplace, enabled in the user's settings; project memory with its secret policy")
	mkt := filepath.Join(examples, "sdk-layer", "marketplace")
	settings, _ := json.Marshal(map[string]any{
		"enabledPlugins":         map[string]bool{"wordtools@demo-tools": true},
		"extraKnownMarketplaces": map[string]any{"demo-tools": map[string]any{"source": map[string]string{"source": "directory", "path": mkt}}},
	})
	// The user's settings (a home of the demo's own): a repository's settings alone never
	// run a plugin, its user installs or enables it.
	home := filepath.Join(tmp, "home")
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o755); err != nil {
		return 0, err
	}
	if err := os.WriteFile(filepath.Join(home, ".claude", "settings.json"), settings, 0o644); err != nil {
		return 0, err
	}
	say("~/.claude/settings.json: %s", settings)
	say("robota -p \"/wordtools:count wordstats.go\" --output-format stream-json")
	pluginRun := exec.Command(filepath.Join(bin, "robota"), "-p", "/wordtools:count wordstats.go", "--output-format", "stream-json",
		"--provider", "script", "--script", script)
	pluginRun.Dir, pluginRun.Env = dir, append(os.Environ(), "HOME="+home)
	var pluginOut, pluginErr bytes.Buffer
	pluginRun.Stdout, pluginRun.Stderr = &pluginOut, &pluginErr
	if err := pluginRun.Run(); err != nil {
		return 0, fmt.Errorf("robota -p /wordtools:count: %v\n%s%s", err, pluginOut.String(), pluginErr.String())
	}
	out = pluginOut.String()
	if _, err = render(strings.NewReader(out)); err != nil {
		return 0, err
	}
	hookLog, err := os.ReadFile(filepath.Join(dir, "wordtools-hook.log"))
	if err != nil {
		return 0, fmt.Errorf("the plugin's hook did not run: %w", err)
	}
	say("the plugin's UserPromptSubmit hook wrote: %q", strings.TrimSpace(string(hookLog)))
	for _, args := range [][]string{
		{"/memory add project tests Run go test ./... in the package directory"},
		{"/memory add reference deploy The deploy key is sk-ant-api03-" + strings.Repeat("DEMOnotARealKey0", 5)},
		{"/memory list"},
	} {
		shown := args[0]
		if len(shown) > 60 {
			shown = shown[:60] + "…"
		}
		say("robota -p %q", shown)
		out, err := robota("-p", args[0])
		if err != nil && !strings.Contains(out, "Not saved") {
			return 0, err
		}
		sayLines(out)
	}
	return first + 4, nil
}

// firstUserText is the text of the first user message in a session journal, read with
// the store's own reader.
func firstUserText(journal, id string) (string, error) {
	data, err := os.ReadFile(journal)
	if err != nil {
		return "", err
	}
	ms := store.NewMemoryStore(store.Options{})
	ms.SetJournal(id, data)
	rec, err := ms.Load(context.Background(), id)
	if err != nil {
		return "", err
	}
	for _, m := range rec.Messages {
		if m.Role == llm.RoleUser {
			return m.Text(), nil
		}
	}
	return "", fmt.Errorf("no user message in %s", journal)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func sayLines(out string) {
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		say("  %s", line)
	}
}

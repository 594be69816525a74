package cli

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/version"
)

// Issue 13 §2: Claude Code's flags parse with its meaning.
func TestParseClaudeFlags(t *testing.T) {
	tests := []struct {
		args  []string
		check func(o Options) bool
	}{
		{[]string{"--print", "hi"}, func(o Options) bool { return o.Print && o.Prompt == "hi" }},
		{[]string{"--print", "--output-format", "json", "hi"}, func(o Options) bool { return o.Print && o.Prompt == "hi" && o.OutputFormat == "json" }},
		{[]string{"--print", "--", "hi"}, func(o Options) bool { return o.Print && o.Prompt == "hi" }},
		{[]string{"-p", "--model", "sonnet", "hi"}, func(o Options) bool { return o.Print && o.Prompt == "hi" && o.Model == "sonnet" }},
		{[]string{"-p", "hi", "-c"}, func(o Options) bool { return o.Continue }},
		{[]string{"-p", "hi", "-r", "abc"}, func(o Options) bool { return o.Resume == "abc" }},
		{[]string{"-r", "abc", "-p", "hi"}, func(o Options) bool { return o.Resume == "abc" && o.Prompt == "hi" }},
		{[]string{"-v"}, func(o Options) bool { return o.ShowVersion }},
		{[]string{"-p", "hi", "--system-prompt", "be terse"}, func(o Options) bool { return o.SystemPromptSet && o.SystemPrompt == "be terse" }},
		{[]string{"-p", "hi", "--system-prompt", ""}, func(o Options) bool { return o.SystemPromptSet && o.SystemPrompt == "" }},
		{[]string{"-p", "hi"}, func(o Options) bool { return !o.SystemPromptSet && o.Tools == nil && o.SettingSources == nil }},
		{[]string{"-p", "hi", "--dangerously-skip-permissions"}, func(o Options) bool { return o.PermissionMode == "bypassPermissions" }},
		{[]string{"-p", "hi", "--permission-mode", "plan", "--dangerously-skip-permissions"}, func(o Options) bool { return o.PermissionMode == "bypassPermissions" }},
		{[]string{"-p", "hi", "--allow-dangerously-skip-permissions"}, func(o Options) bool {
			return o.AllowDangerouslySkipPermissions && o.PermissionMode == ""
		}},
		{[]string{"-p", "hi", "--allowed-tools", "Read,Edit", "--allowedTools=Bash(git *)", "--disallowed-tools", "WebFetch"}, func(o Options) bool {
			return reflect.DeepEqual(o.AllowedTools, []string{"Read", "Edit", "Bash(git *)"}) && reflect.DeepEqual(o.DisallowedTools, []string{"WebFetch"})
		}},
		{[]string{"-p", "hi", "--tools", ""}, func(o Options) bool { return o.Tools != nil && len(o.Tools) == 0 }},
		{[]string{"-p", "hi", "--tools=default"}, func(o Options) bool { return o.Tools == nil }},
		{[]string{"-p", "hi", "--tools", "Read,Bash Edit"}, func(o Options) bool { return reflect.DeepEqual(o.Tools, []string{"Read", "Bash", "Edit"}) }},
		{[]string{"-p", "hi", "--session-id", "0b8ad1a2-6c1e-4f4e-9d59-6d7e1b2c3d4e"}, func(o Options) bool { return o.SessionID == "0b8ad1a2-6c1e-4f4e-9d59-6d7e1b2c3d4e" }},
		{[]string{"-p", "hi", "--setting-sources", "user,project"}, func(o Options) bool { return reflect.DeepEqual(o.SettingSources, []string{"user", "project"}) }},
		{[]string{"-p", "hi", "--setting-sources="}, func(o Options) bool { return o.SettingSources != nil && len(o.SettingSources) == 0 }},
		{[]string{"-p", "hi", "--settings", `{"language":"ko"}`}, func(o Options) bool { return o.Settings == `{"language":"ko"}` }},
		{[]string{"-p", "hi", "--add-dir", "/a b", "--add-dir=/c"}, func(o Options) bool { return reflect.DeepEqual(o.AddDirs, []string{"/a b", "/c"}) }},
		{[]string{"-p", "hi", "--mcp-config", `{"mcpServers":{}}`, "--strict-mcp-config"}, func(o Options) bool {
			return reflect.DeepEqual(o.MCPConfig, []string{`{"mcpServers":{}}`}) && o.StrictMCPConfig
		}},
		{[]string{"-p", "hi", "--fallback-model", "haiku", "--max-thinking-tokens=100", "--max-budget-usd=1.5"}, func(o Options) bool {
			return o.FallbackModel == "haiku" && o.MaxThinkingTokens == 100 && o.MaxBudgetUSD == 1.5
		}},
		{[]string{"-p", "hi", "--no-session-persistence", "--include-hook-events", "--json-schema", `{"type":"object"}`}, func(o Options) bool {
			return o.NoSessionPersistence && o.IncludeHookEvents && o.JSONSchema == `{"type":"object"}`
		}},
		{[]string{"-p", "--debug", "hi"}, func(o Options) bool { return o.DebugSet && o.Debug == "hi" && o.Prompt == "" }},
		{[]string{"-p", "hi", "--debug"}, func(o Options) bool { return o.DebugSet && o.Debug == "" && o.Prompt == "hi" }},
		{[]string{"-p", "hi", "-d", "--verbose"}, func(o Options) bool { return o.DebugSet && o.Verbose }},
		{[]string{"-p", "hi", "--betas=a,b"}, func(o Options) bool { return reflect.DeepEqual(o.Betas, []string{"a", "b"}) }},
		{[]string{"-p", "--input-format", "stream-json", "--output-format", "stream-json", "--include-partial-messages",
			"--replay-user-messages", "--permission-prompt-tool=stdio"}, func(o Options) bool {
			return o.InputFormat == "stream-json" && o.IncludePartialMessages && o.ReplayUserMessages && o.PermissionPromptTool == "stdio"
		}},
		{[]string{"-p", "hi"}, func(o Options) bool { return o.InputFormat == "text" }},
		// The Agent SDK's argument list (no -p: the prompt comes over stdin).
		{[]string{"--output-format", "stream-json", "--verbose", "--input-format", "stream-json", "--max-thinking-tokens=100",
			"--model=sonnet", "--permission-prompt-tool=stdio", "--resume=abc", "--allowedTools=Read,Edit", "--tools=Read",
			"--mcp-config", `{"mcpServers":{}}`, "--setting-sources=", "--permission-mode=default", "--add-dir=/tmp/a", "--fallback-model=haiku",
			"--fork-session", "--no-session-persistence", "--settings", `{"a":1}`}, func(o Options) bool {
			return !o.Print && o.Resume == "abc" && o.ForkSession && o.Model == "sonnet" && len(o.SettingSources) == 0 && o.SettingSources != nil
		}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			o, err := ParseFlags(tt.args, &bytes.Buffer{})
			if err != nil {
				t.Fatal(err)
			}
			if !tt.check(o) {
				t.Fatalf("unexpected options: %+v", o)
			}
		})
	}
}

func TestParseClaudeFlagsErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-p", "hi", "--bogus"}, "unknown option '--bogus'"},
		{[]string{"-p", "--bogus", "hi"}, "unknown option '--bogus'"}, // not taken for the prompt
		{[]string{"-x=1", "-p", "hi"}, "unknown option '-x=1'"},
		{[]string{"-p", "hi", "-r"}, "--resume needs a session id"},
		{[]string{"-r", "--print", "hi"}, "--resume needs a session id"},
		{[]string{"-p", "hi", "--session-id", "not-a-uuid"}, `--session-id "not-a-uuid": not a valid UUID`},
		{[]string{"-p", "hi", "--setting-sources", "user,global"}, `unknown source "global"`},
		{[]string{"-p", "hi", "--input-format", "xml"}, `--input-format "xml"`},
		{[]string{"-p", "hi", "--json-schema", "{"}, "--json-schema: not valid JSON"},
		{[]string{"-p", "hi", "--max-budget-usd", "0"}, "want a positive amount"},
		{[]string{"-p", "hi", "--model", "opus", "--fallback-model", "opus"}, "--fallback-model is the same as --model"},
		{[]string{"-p", "hi", "--engine", "unix:///tmp/x.sock", "--system-prompt", "x"}, "--system-prompt is not supported with --engine"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, err := ParseFlags(tt.args, &bytes.Buffer{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
	var unknown *UnknownFlagError
	if _, err := ParseFlags([]string{"--nope"}, &bytes.Buffer{}); !errors.As(err, &unknown) || unknown.Arg != "--nope" {
		t.Fatalf("err = %v, want UnknownFlagError --nope", err)
	}
}

// An unknown flag is one line on stderr, exit 2; a flag without effect is named under
// --verbose only, once.
func TestMainUnknownAndNoEffectFlags(t *testing.T) {
	var out, errb bytes.Buffer
	if code := Main([]string{"-p", "hi", "--bogus"}, &out, &errb); code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
	if got := errb.String(); strings.Count(got, "\n") != 1 || !strings.Contains(got, "--bogus") {
		t.Fatalf("stderr %q: want one line naming --bogus", got)
	}

	o, err := ParseFlags([]string{"-p", "hi", "--include-hook-events", "--include-hook-events", "-d", "--debug", "--betas", "x"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"--debug has no effect in robota (robota has no debug log; --verbose shows tool activity and warnings)",
		"--include-hook-events has no effect in robota (robota's stream-json output has no hook events yet)",
	}
	if !reflect.DeepEqual(o.NoEffect, want) {
		t.Fatalf("NoEffect = %q, want %q", o.NoEffect, want)
	}
	errb.Reset()
	// No -p and no terminal: the UI cannot start (exit 2), after the flags were reported.
	if code := Main([]string{"--debug", "--verbose", "-d"}, &out, &errb); code != 2 ||
		strings.Count(errb.String(), "--debug has no effect") != 1 {
		t.Fatalf("exit %d stderr %q: want --debug named once", code, errb.String())
	}
	errb.Reset()
	Main([]string{"--debug"}, &out, &errb)
	if strings.Contains(errb.String(), "no effect") {
		t.Fatalf("stderr %q: no-effect flags are named under --verbose only", errb.String())
	}
}

func TestVersionLine(t *testing.T) {
	defer func(v string) { version.Version = v }(version.Version)
	for v, want := range map[string]string{"v1.2.3": "1.2.3 (robota)", "0.4.0-rc1": "0.4.0-rc1 (robota)",
		"8c6cbb0": "0.0.0-8c6cbb0 (robota)", "v0.3.1-4-g8c6cbb0-dirty": "0.3.1-4-g8c6cbb0-dirty (robota)"} {
		version.Version = v
		if got := versionLine(); got != want {
			t.Errorf("version %q: versionLine() = %q, want %q", v, got, want)
		}
	}
}

// Issue 24 §1: every argument list the published clients pass parses, as Claude Code
// 2.1.197 takes it. The lists are the ones their code builds (Agent SDK 0.2.44 and
// 0.3.263 with every option set, extraArgs included; the ACP adapter's trailing ”; the
// community SDK's --print last; the MCP wrapper's -p PROMPT).
func TestPublishedClientArgumentLists(t *testing.T) {
	dir := t.TempDir()
	prompt := dir + "/prompt.md"
	if err := os.WriteFile(prompt, []byte("be brief\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sdk := []string{"--output-format", "stream-json", "--verbose", "--input-format", "stream-json"}
	tests := []struct {
		name  string
		args  []string
		check func(o Options) bool
	}{
		{"acp adapter trailing empty argument", append(slices.Clone(sdk), "--include-partial-messages",
			"--disallowedTools", "AskUserQuestion,Read,Write,Edit", "--replay-user-messages", ""),
			func(o Options) bool {
				return o.Prompt == "" && o.ReplayUserMessages && o.IncludePartialMessages &&
					reflect.DeepEqual(o.DisallowedTools, []string{"AskUserQuestion", "Read", "Write", "Edit"})
			}},
		{"empty -p value", []string{"-p", "", "--input-format", "stream-json", "--output-format", "stream-json"},
			func(o Options) bool { return o.Print && o.Prompt == "" }},
		{"agent sdk 0.2", append(slices.Clone(sdk), "--max-thinking-tokens", "1024", "--effort", "high", "--max-turns", "3",
			"--max-budget-usd", "2", "--model", "sonnet", "--agent", "reviewer", "--betas", "a,b", "--json-schema", `{"type":"object"}`,
			"--debug-file", dir+"/dbg", "--debug-to-stderr", "--permission-prompt-tool", "stdio", "--continue",
			"--allowedTools", "Read,Grep", "--disallowedTools", "Bash", "--tools", "Read,Grep,Bash", "--mcp-config", `{"mcpServers":{}}`,
			"--setting-sources", "user,project", "--strict-mcp-config", "--permission-mode", "acceptEdits",
			"--allow-dangerously-skip-permissions", "--fallback-model", "haiku", "--include-partial-messages", "--add-dir", dir,
			"--plugin-dir", dir, "--fork-session", "--session-id", "0b8ad1a2-6c1e-4f4e-9d59-6d7e1b2c3d4e",
			"--no-session-persistence", "--settings", `{"sandbox":{"enabled":false}}`),
			func(o Options) bool {
				return o.Continue && o.MaxTurns == 3 && o.Model == "sonnet" && len(o.NoEffect) > 0
			}},
		{"agent sdk 0.3", append(slices.Clone(sdk), "--thinking", "adaptive", "--thinking-display", "summarized",
			"--task-budget", "1000", "--permission-prompts", "x", "--resume=abc", "--channels", "plugin:a@b",
			"--setting-sources=", "--include-hook-events", "--session-mirror", "--await-initialize",
			"--plugin-dir-no-mcp", dir, "--resume-session-at=msg_1", "--resume-drops-turn=true",
			"--session-id=0b8ad1a2-6c1e-4f4e-9d59-6d7e1b2c3d4e", "--fork-session", "--managed-settings", `{}`,
			"--agents", `{"r":{"description":"reviews","prompt":"review it"}}`, "--name", "nightly"),
			func(o Options) bool {
				return o.Resume == "abc" && o.Name == "nightly" && len(o.Agents) == 1 && o.Agents[0].Name == "r" &&
					reflect.DeepEqual(o.PluginDirs, []string{dir})
			}},
		{"community sdk, --print last", []string{"--output-format", "stream-json", "--verbose", "--model", "sonnet",
			"--allowedTools", "Read", "--add-dir", "/a /b", "--print"},
			func(o Options) bool {
				return o.Print && o.Prompt == "" && reflect.DeepEqual(o.AddDirs, []string{"/a /b"})
			}},
		{"mcp wrapper", []string{"--dangerously-skip-permissions", "-p", "do it"},
			func(o Options) bool { return o.Print && o.Prompt == "do it" && o.PermissionMode == "bypassPermissions" }},
		{"variadic values", []string{"-p", "hi", "--add-dir", "/a", "/b", "--mcp-config", "one.json", "two.json", "--verbose"},
			func(o Options) bool {
				return o.Prompt == "hi" && reflect.DeepEqual(o.AddDirs, []string{"/a", "/b"}) &&
					reflect.DeepEqual(o.MCPConfig, []string{"one.json", "two.json"}) && o.Verbose
			}},
		{"variadic tools then empty", []string{"-p", "hi", "--tools", ""}, func(o Options) bool { return o.Tools != nil && len(o.Tools) == 0 }},
		{"system prompt files", []string{"-p", "hi", "--system-prompt-file", prompt, "--append-system-prompt-file", prompt},
			func(o Options) bool {
				return o.SystemPromptSet && o.SystemPrompt == "be brief" && o.AppendSystemPrompt == "be brief"
			}},
		{"thinking disabled wins", []string{"-p", "hi", "--max-thinking-tokens", "500", "--thinking", "disabled"},
			func(o Options) bool { return o.MaxThinkingTokens == 0 }},
		{"auto mode asks as default", []string{"-p", "hi", "--permission-mode", "auto"},
			func(o Options) bool { return o.PermissionMode == "default" && len(o.NoEffect) == 1 }},
		{"unknown effort is a warning", []string{"-p", "hi", "--effort", "huge"},
			func(o Options) bool { return len(o.Warnings) == 1 && strings.Contains(o.Warnings[0], `"huge"`) }},
		{"optional values", []string{"-p", "hi", "--worktree", "--tmux=classic", "--from-pr", "--remote-control", "-n", "x"},
			func(o Options) bool { return o.Prompt == "hi" && o.Name == "x" }},
		{"interactive prompt", []string{"fix the bug"}, func(o Options) bool { return !o.Print && o.Prompt == "fix the bug" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := ParseFlags(tt.args, &bytes.Buffer{})
			if err != nil {
				t.Fatalf("%q: %v", tt.args, err)
			}
			if !tt.check(o) {
				t.Fatalf("unexpected options: %+v", o)
			}
		})
	}
}

// What Claude Code refuses, robota refuses with a message naming the flag.
func TestAcceptedFlagErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-p", "hi", "--thinking", "x"}, `--thinking "x": want one of enabled, adaptive, disabled`},
		{[]string{"-p", "hi", "--thinking-display", "x"}, `--thinking-display "x"`},
		{[]string{"-p", "hi", "--resume-session-at", "m"}, "--resume-session-at requires --resume"},
		{[]string{"-p", "hi", "--system-prompt-file", "/nonexistent/p.md"}, "--system-prompt-file: open /nonexistent/p.md"},
		{[]string{"-p", "hi", "--system-prompt", "a", "--system-prompt-file", "/etc/hostname"}, "cannot be used together"},
		{[]string{"-p", "hi", "--agents", "[1]"}, "--agents: not a JSON object"},
		{[]string{"-p", "hi", "--agents", `{"a":{"description":"d"}}`}, `agent "a" needs a description and a prompt`},
		{[]string{"-p", "hi", "--engine", "unix:///tmp/x.sock", "--name", "x"}, "--name is not supported with --engine"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, err := ParseFlags(tt.args, &bytes.Buffer{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// robota --help lists every flag a published client passes, each with its effect or
// "accepted, no effect" and why.
func TestHelpListsAcceptedFlags(t *testing.T) {
	var out bytes.Buffer
	if _, err := ParseFlags([]string{"--help"}, &out); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("--help: %v", err)
	}
	help := out.String()
	for _, f := range acceptedFlags {
		if !strings.Contains(help, "-"+f.name) || !strings.Contains(help, f.why) {
			t.Errorf("--help does not list -%s with why it has no effect", f.name)
		}
	}
	for _, name := range []string{"name", "agents", "system-prompt-file", "append-system-prompt-file", "thinking",
		"plugin-dir-no-mcp", "replay-user-messages", "include-partial-messages"} {
		if !strings.Contains(help, "-"+name+" ") && !strings.Contains(help, "-"+name+"\n") {
			t.Errorf("--help does not list -%s", name)
		}
	}
}

package cli

import (
	"bytes"
	"errors"
	"reflect"
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
	// No -p: the terminal UI is not there yet (exit 1), after the flags were reported.
	if code := Main([]string{"--debug", "--verbose", "-d"}, &out, &errb); code != 1 ||
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

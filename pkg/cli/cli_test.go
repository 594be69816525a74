package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestAllowedToolsFlagRepeatsAndSplits(t *testing.T) {
	o, err := ParseFlags([]string{"-p", "hi", "--allowedTools", "Read", "--allowedTools", "Bash(git log *),Edit",
		"--disallowedTools", "WebFetch"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Read", "Bash(git log *)", "Edit"}; !reflect.DeepEqual(o.AllowedTools, want) {
		t.Fatalf("AllowedTools = %q, want %q", o.AllowedTools, want)
	}
	if want := []string{"WebFetch"}; !reflect.DeepEqual(o.DisallowedTools, want) {
		t.Fatalf("DisallowedTools = %q", o.DisallowedTools)
	}
}

// Review A12: -p may stand without a value (claude -p style): the prompt then follows the
// flags or comes from stdin; robota -p "PROMPT" works as before.
func TestPromptFlag(t *testing.T) {
	tests := []struct {
		args   []string
		print  bool
		prompt string
		format string
	}{
		{[]string{"-p", "hi"}, true, "hi", "text"},
		{[]string{"-p", "hi", "--output-format", "json"}, true, "hi", "json"},
		{[]string{"--output-format", "json", "-p", "hi"}, true, "hi", "json"},
		{[]string{"-p"}, true, "", "text"},
		{[]string{"-p", ""}, true, "", "text"},
		{[]string{"--p"}, true, "", "text"},
		{[]string{"-p", "--output-format", "json"}, true, "", "json"},
		{[]string{"-p", "--output-format", "json", "explain this"}, true, "explain this", "json"},
		{[]string{"-p", "--verbose", "explain this", "--output-format=json"}, true, "explain this", "json"},
		{[]string{"-p", "--", "-v means verbose?"}, true, "-v means verbose?", "text"},
		{[]string{"-p", "-x is not a flag of ours"}, true, "-x is not a flag of ours", "text"},
		// A flag's value is never taken for -p, nor -p's value for a flag.
		{[]string{"--append-system-prompt", "-p", "-p", "hi"}, true, "hi", "text"},
		{[]string{"--max-turns", "3"}, false, "", "text"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			o, err := ParseFlags(tt.args, &bytes.Buffer{})
			if err != nil {
				t.Fatal(err)
			}
			if o.Print != tt.print || o.Prompt != tt.prompt || o.OutputFormat != tt.format {
				t.Fatalf("print %v prompt %q format %s; want %v %q %s", o.Print, o.Prompt, o.OutputFormat, tt.print, tt.prompt, tt.format)
			}
		})
	}
	if o, _ := ParseFlags([]string{"--append-system-prompt", "-p", "-p", "hi"}, &bytes.Buffer{}); o.AppendSystemPrompt != "-p" {
		t.Fatalf("--append-system-prompt = %q, want -p", o.AppendSystemPrompt)
	}
}

func TestMainExitStatuses(t *testing.T) {
	tests := []struct {
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{args: []string{"--version"}, wantCode: 0, wantStdout: " (robota)\n"},
		{args: []string{"-v"}, wantCode: 0, wantStdout: " (robota)\n"},
		{args: []string{"--help"}, wantCode: 0, wantStderr: "robota -p PROMPT"},
		{args: []string{"--output-format", "xml"}, wantCode: 2, wantStderr: `--output-format "xml"`},
		// A prompt without -p is the interactive session's first prompt; the interactive
		// UI needs a terminal, which a test has not: it says how to run headless.
		{args: []string{"stray"}, wantCode: 2, wantStderr: "the interactive UI needs a terminal"},
		{args: []string{}, wantCode: 2, wantStderr: `for a headless run use robota -p "PROMPT"`},
		// Claude Code takes the first argument as the prompt; robota says what it ignored.
		{args: []string{"-p", "a", "b"}, wantCode: 2, wantStderr: `ignoring extra arguments ["b"]: the prompt is "a"`},
		{args: []string{"-p", "--output-format", "json", "a", "b"}, wantCode: 2, wantStderr: `ignoring extra arguments ["b"]`},
		{args: []string{"--fork-session", "-p", "hi"}, wantCode: 2, wantStderr: "--fork-session needs --resume ID or --continue"},
		// Issue 10 §6: an empty --resume is a usage error, not a new session.
		{args: []string{"-p", "hi", "--resume", ""}, wantCode: 2, wantStderr: "--resume needs a session id"},
		{args: []string{"-p", "hi", "--resume="}, wantCode: 2, wantStderr: "--resume needs a session id"},
		{args: []string{"--resume", " ", "-p", "hi"}, wantCode: 2, wantStderr: "--resume needs a session id"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := Main(tt.args, &out, &errb); code != tt.wantCode {
				t.Fatalf("exit = %d, want %d (stderr %q)", code, tt.wantCode, errb.String())
			}
			if !strings.Contains(out.String(), tt.wantStdout) || !strings.Contains(errb.String(), tt.wantStderr) {
				t.Fatalf("stdout %q / stderr %q, want %q / %q", out.String(), errb.String(), tt.wantStdout, tt.wantStderr)
			}
		})
	}
}

// Review A9/A12: what the user must fix exits 2 before any model call; -p without a
// prompt and without piped input says how to give one.
func TestHeadlessConfigurationErrorsExit2(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	for _, k := range []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "ANTHROPIC_AUTH_TOKEN"} {
		t.Setenv(k, "")
	}
	dir := t.TempDir()
	scriptPath := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(scriptPath, []byte("turns:\n  - text: hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	offline := []string{"--provider", "script", "--script", scriptPath, "--cwd", dir}
	tests := []struct {
		name       string
		args       []string
		wantStderr string
	}{
		{"no prompt", append([]string{"-p"}, offline...), "-p needs a prompt"},
		{"invalid allowed tool rule", append([]string{"-p", "hi", "--allowedTools", "Bash("}, offline...), `invalid permission rule "Bash("`},
		{"missing working directory", []string{"-p", "hi", "--provider", "script", "--script", scriptPath,
			"--cwd", filepath.Join(dir, "missing")}, "not a directory"},
		{"hook config error", append([]string{"-p", "hi", "--cwd", dir}, "--provider", "script", "--script", scriptPath), "hooks.PreToolUse"},
	}
	hookDir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(hookDir, ".robota"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(hookDir, ".robota", "settings.json"),
		[]byte(`{"hooks": {"PreToolUse": [{"matcher": "Bash(", "hooks": [{"type": "command", "command": "exit 2"}]}]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests[3].args[3] = hookDir
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := mainWith(tt.args, openFile(t, os.DevNull), &out, &errb); code != 2 {
				t.Fatalf("exit %d, want 2 (stderr %q)", code, errb.String())
			}
			if !strings.Contains(errb.String(), tt.wantStderr) {
				t.Fatalf("stderr %q lacks %q", errb.String(), tt.wantStderr)
			}
		})
	}
}

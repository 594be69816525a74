package cli

import (
	"bytes"
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

func TestMainExitStatuses(t *testing.T) {
	tests := []struct {
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{args: []string{"--version"}, wantCode: 0, wantStdout: "robota "},
		{args: []string{"--help"}, wantCode: 0, wantStderr: "robota -p PROMPT"},
		{args: []string{"--output-format", "xml"}, wantCode: 2, wantStderr: `--output-format "xml"`},
		{args: []string{"stray"}, wantCode: 2, wantStderr: "unexpected arguments"},
		{args: []string{"-p", "hello", "--engine", "unix:///tmp/e.sock"}, wantCode: 2, wantStderr: "--engine is not available in this build yet"},
		{args: []string{}, wantCode: 1, wantStderr: "interactive terminal UI is not available in this build yet"},
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

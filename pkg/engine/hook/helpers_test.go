package hook

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// script returns a command line running a script from testdata/hooks with arguments,
// each single-quoted for /bin/sh.
func script(t *testing.T, name string, args ...string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("testdata", "hooks", name))
	if err != nil {
		t.Fatal(err)
	}
	parts := []string{shQuote(p)}
	for _, a := range args {
		parts = append(parts, shQuote(a))
	}
	return strings.Join(parts, " ")
}

func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func cmdHook(command string) Definition { return Definition{Type: "command", Command: command} }

// config builds a config with one group per matcher for one event.
func config(ev Event, groups ...Group) Config { return Config{ev: groups} }

func group(matcher string, hooks ...Definition) Group { return Group{Matcher: matcher, Hooks: hooks} }

func bashCall(cmd string) Input {
	in, _ := json.Marshal(map[string]string{"command": cmd, "description": "run it"})
	return Input{Event: PreToolUse, SessionID: "s1", Cwd: "/p", PermissionMode: "default",
		ToolName: "Bash", ToolInput: in, ToolUseID: "toolu_1"}
}

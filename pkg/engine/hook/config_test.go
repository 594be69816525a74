package hook

import (
	"errors"
	"testing"
)

func TestParseSettings(t *testing.T) {
	settings := []byte(`{
	  "permissions": {"allow": ["Bash(npm test *)"]},
	  "hooks": {
	    "PreToolUse": [
	      {"matcher": "Bash", "hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/check.sh", "timeout": 30}]},
	      {"matcher": "Edit|Write", "hooks": [{"type": "http", "url": "http://127.0.0.1:9/hook", "headers": {"A": "b"}}]}
	    ],
	    "SessionStart": [{"hooks": [{"type": "command", "command": "cat notes.md"}]}]
	  }
	}`)
	cfg, err := ParseSettings(settings)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg[PreToolUse]) != 2 || len(cfg[SessionStart]) != 1 {
		t.Fatalf("%+v", cfg)
	}
	h := cfg[PreToolUse][0].Hooks[0]
	if h.Type != "command" || h.Timeout != 30 || h.timeout().Seconds() != 30 || cfg[PreToolUse][1].Hooks[0].Headers["A"] != "b" {
		t.Fatalf("%+v", h)
	}
	if d := cfg[SessionStart][0].Hooks[0].timeout(); d != DefaultTimeout {
		t.Fatalf("default timeout %v", d)
	}
	empty, err := ParseSettings([]byte(`{"model":"x"}`))
	if err != nil || len(empty) != 0 {
		t.Fatalf("%v %v", empty, err)
	}
}

func TestParseConfigReportsAndKeepsTheRest(t *testing.T) {
	cfg, err := ParseConfig([]byte(`{
	  "PreToolUse": [
	    {"matcher": "(", "hooks": [{"type": "command", "command": "a"}]},
	    {"matcher": "Bash", "hooks": [{"type": "command"}, {"command": "b"}, {"type": "command", "command": "c", "timeout": -1}, {"type": "command", "command": "ok"}]}
	  ],
	  "BeforeEverything": [{"hooks": [{"type": "command", "command": "x"}]}],
	  "Stop": "nope"
	}`))
	if err == nil || !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("want ErrInvalidConfig, got %v", err)
	}
	if !errors.Is(err, ErrUnknownEvent) {
		t.Fatalf("unknown event not reported: %v", err)
	}
	if len(cfg[PreToolUse]) != 2 || len(cfg[PreToolUse][1].Hooks) != 1 || cfg[PreToolUse][1].Hooks[0].Command != "ok" {
		t.Fatalf("%+v", cfg)
	}
	if _, err := ParseConfig([]byte(`[]`)); !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("%v", err)
	}
}

func TestMerge(t *testing.T) {
	a := Config{PreToolUse: {group("Bash", cmdHook("a"))}}
	b := Config{PreToolUse: {group("Edit", cmdHook("b"))}, Stop: {group("", cmdHook("c"))}}
	m := Merge(a, b)
	if len(m[PreToolUse]) != 2 || len(m[Stop]) != 1 || m[PreToolUse][0].Hooks[0].Command != "a" {
		t.Fatalf("%+v", m)
	}
}

package assemble

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// Provider keys reach no command: not Bash, not background commands, not MCP servers;
// the settings `env` puts one there when the user wants it.
func TestToolEnvLeavesProviderKeysOut(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test")
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "tok")
	t.Setenv("ROBOTA_TEST_PLAIN", "kept")
	env := toolEnv(nil)
	for _, kv := range env {
		if name, _, _ := strings.Cut(kv, "="); providerCredential(name) {
			t.Errorf("%s reached the tool environment", name)
		}
	}
	if !slices.Contains(env, "ROBOTA_TEST_PLAIN=kept") {
		t.Error("an ordinary variable was dropped")
	}
	if env := toolEnv(map[string]string{"OPENAI_API_KEY": "from-settings"}); !slices.Contains(env, "OPENAI_API_KEY=from-settings") {
		t.Error("a key named in the settings env did not reach the tool environment")
	}
}

// A command hook of the session gets no provider key from the engine's environment.
func TestHookEnvLeavesProviderKeysOut(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-hooktest")
	dir := t.TempDir()
	out := dir + "/hook-env.txt"
	s := newTestSession(t, scriptProvider(t, "turns:\n  - text: ok\n"), Options{Cwd: dir,
		Settings: `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "env > ` + out + `"}]}]}}`})
	sub := s.Subscribe()
	sent, _ := s.Submit("hi")
	until(t, sub, ends(sent.PromptID))
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "sk-ant-hooktest") {
		t.Fatal("a command hook saw ANTHROPIC_API_KEY")
	}
	if !strings.Contains(string(b), "CLAUDE_PROJECT_DIR=") {
		t.Fatalf("the hook's environment lacks CLAUDE_PROJECT_DIR:\n%s", b)
	}
}

package interactive

import (
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

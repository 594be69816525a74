package openaicompat_test

import (
	"testing"

	"github.com/robota-sdk/robota-go/pkg/providers/compat"
	"github.com/robota-sdk/robota-go/pkg/providers/internal/compattest"
	"github.com/robota-sdk/robota-go/pkg/providers/openai"
	"github.com/robota-sdk/robota-go/pkg/providers/openaicompat"
	"github.com/robota-sdk/robota-go/pkg/providers/registry"
)

// TestInProcessRegistry runs the OpenAI-compatible types' suite with their providers
// built in this process.
func TestInProcessRegistry(t *testing.T) { compattest.Run(t, registry.NewBuiltin(openaicompat.Open)) }

// TestRegistryConstantsMatchTheProvider: the registry repeats the openai package's
// constants so it links no SDK; they must not drift apart.
func TestRegistryConstantsMatchTheProvider(t *testing.T) {
	for _, c := range [][2]string{
		{compat.OpenAIDefaultBaseURL, openai.DefaultBaseURL},
		{compat.OpenAIAPIKeyEnv, openai.APIKeyEnv},
		{compat.OpenAIBaseURLEnv, openai.BaseURLEnv},
		{compat.MaxCompletionTokens, string(openai.MaxCompletionTokens)},
		{compat.LegacyMaxTokens, string(openai.LegacyMaxTokens)},
	} {
		if c[0] != c[1] {
			t.Errorf("registry has %q, openai %q", c[0], c[1])
		}
	}
}

// TestOpenRejectsAnUnknownProjection: a configuration from another process is checked.
func TestOpenRejectsAnUnknownProjection(t *testing.T) {
	if _, err := openaicompat.Open(compat.Config{Name: "x", BaseURL: "http://x", Model: "m", KeyOptional: true, Projection: "nope"}); err == nil {
		t.Fatal("unknown projection accepted")
	}
}

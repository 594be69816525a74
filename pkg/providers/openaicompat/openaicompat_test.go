package openaicompat_test

import (
	"testing"

	"github.com/robota-sdk/robota-go/pkg/providers/compat"
	"github.com/robota-sdk/robota-go/pkg/providers/internal/compattest"
	"github.com/robota-sdk/robota-go/pkg/providers/openaicompat"
	"github.com/robota-sdk/robota-go/pkg/providers/registry"
)

// TestInProcessRegistry runs the OpenAI-compatible types' suite with their providers
// built in this process.
func TestInProcessRegistry(t *testing.T) { compattest.Run(t, registry.NewBuiltin(openaicompat.Open)) }

// TestOpenRejectsAnUnknownProjection: a configuration from another process is checked.
func TestOpenRejectsAnUnknownProjection(t *testing.T) {
	if _, err := openaicompat.Open(compat.Config{Name: "x", BaseURL: "http://x", Model: "m", KeyOptional: true, Projection: "nope"}); err == nil {
		t.Fatal("unknown projection accepted")
	}
}

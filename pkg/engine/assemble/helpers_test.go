package assemble

// Helpers of the tests that drive assembled sessions (copies of the session core's
// external test helpers: the two test packages cannot share a file).

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive/interactivetest"

	. "github.com/robota-sdk/robota-go/pkg/engine/interactive"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/providers/script"
)

// testWait bounds every wait of these tests: ordering comes from channels, the bound
// only turns a hang into a failure.
const testWait = 20 * time.Second

// safeIDs is a goroutine-safe deterministic id generator.
// The event helpers are interactivetest's, under the names these tests use.
var (
	next          = interactivetest.Next
	until         = interactivetest.Until
	isType        = interactivetest.IsType
	ends          = interactivetest.Ends
	checkSeq      = interactivetest.CheckSeq
	submitAndWait = interactivetest.SubmitAndWait
)

func safeIDs() func() string {
	var n atomic.Int64
	return func() string { return fmt.Sprintf("id-%03d", n.Add(1)) }
}

func scriptProvider(t *testing.T, yaml string) *script.Provider {
	t.Helper()
	p, err := script.New([]byte(yaml), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// newTestSession assembles an InteractiveSession over provider in a fresh project.
func newTestSession(t *testing.T, provider llm.Provider, opts Options) *InteractiveSession {
	t.Helper()
	if opts.Cwd == "" {
		opts.Cwd = t.TempDir()
	}
	opts.Home, opts.Env, opts.NewID, opts.LLM = t.TempDir(), envOf(nil), safeIDs(), provider
	s, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background(), "other") })
	return s
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

const commandScript = `
turns:
  - when: {compaction: true}
    text: "[Context Summary] said hello"
    repeat: true
  - when: {lastUserContains: "slow"}
    text: "slow answer"
    hang: true
  - text: "hi there"
    usage: {inputTokens: 100, outputTokens: 7}
    repeat: true
`

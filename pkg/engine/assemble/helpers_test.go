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

	. "github.com/robota-sdk/robota-go/pkg/engine/interactive"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/providers/script"
)

// testWait bounds every wait of these tests: ordering comes from channels, the bound
// only turns a hang into a failure.
const testWait = 20 * time.Second

// safeIDs is a goroutine-safe deterministic id generator.
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

// next takes the next event or fails the test.
func next(t *testing.T, sub *Subscription) Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	ev, err := sub.Next(ctx)
	if err != nil {
		t.Fatalf("waiting for an event: %v", err)
	}
	return ev
}

// until takes events until one matches, returning all taken (the match last).
func until(t *testing.T, sub *Subscription, match func(Event) bool) []Event {
	t.Helper()
	var got []Event
	for {
		ev := next(t, sub)
		got = append(got, ev)
		if match(ev) {
			return got
		}
	}
}

func isType(typ EventType) func(Event) bool { return func(e Event) bool { return e.Type == typ } }

// ends matches the end event of prompt id.
func ends(id string) func(Event) bool {
	return func(e Event) bool {
		return e.PromptID == id && (e.Type == EventComplete || e.Type == EventError || e.Type == EventInterrupted)
	}
}

// checkSeq fails unless sequence numbers strictly increase.
func checkSeq(t *testing.T, events []Event) {
	t.Helper()
	for i := 1; i < len(events); i++ {
		if events[i].Seq <= events[i-1].Seq {
			t.Fatalf("sequence not increasing at %d: %d after %d (%s after %s)", i, events[i].Seq, events[i-1].Seq, events[i].Type, events[i-1].Type)
		}
	}
}

func submitAndWait(t *testing.T, s *InteractiveSession, prompt string) string {
	t.Helper()
	sub := s.Subscribe()
	defer sub.Close()
	sent, err := s.Submit(prompt)
	if err != nil {
		t.Fatal(err)
	}
	events := until(t, sub, ends(sent.PromptID))
	if end := events[len(events)-1]; end.Type != EventComplete {
		t.Fatalf("%q ended %s %+v", prompt, end.Type, end.Result)
	}
	return sent.PromptID
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

package script

import (
	"context"
	"fmt"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// Providers of one script share its parse but not what they used: each replays the
// script from its first turn.
func TestProvidersOfOneScriptShareTheParseNotTheState(t *testing.T) {
	data := []byte("turns:\n  - text: first\n  - text: second\n")
	a, err := New(data, "shared.yaml")
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(data, "shared.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if a.Script() != b.Script() {
		t.Error("the same script was parsed twice")
	}
	req := llm.ChatRequest{Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Part{llm.TextPart("hi")}}}}
	for _, p := range []*Provider{a, b} {
		resp, err := p.Chat(context.Background(), req, llm.Callbacks{})
		if err != nil {
			t.Fatal(err)
		}
		if got := resp.Message.Text(); got != "first" {
			t.Errorf("a provider's first answer is %q, want first", got)
		}
	}
	other, err := New([]byte("turns:\n  - text: changed\n"), "shared.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if other.Script() == a.Script() {
		t.Error("a changed script was answered from the cache")
	}
	// The cache is bounded: the first script is parsed again after cachedScripts others.
	for i := range cachedScripts {
		if _, err := New(fmt.Appendf(nil, "turns:\n  - text: t%d\n", i), "other.yaml"); err != nil {
			t.Fatal(err)
		}
	}
	if c, err := New(data, "shared.yaml"); err != nil || c.Script() == a.Script() {
		t.Errorf("the cache kept more than %d scripts (%v)", cachedScripts, err)
	}
	if _, err := New([]byte("turns: [}"), "bad.yaml"); err == nil {
		t.Error("a bad script parsed")
	}
}

package interactive_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A prompt's end Result carries its history delta (what it added to the timeline, not
// the whole history again) and its tool calls in the model's order, each as it ended.
func TestResultCarriesHistoryDeltaAndTools(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(target, []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := scriptProvider(t, fmt.Sprintf(`
turns:
  - when: {lastUserContains: "first"}
    text: "hello"
  - when: {lastUserContains: "second"}
    toolCalls:
      - {id: c1, name: Read, input: {file_path: %q}}
      - {id: c2, name: Read, input: {file_path: %q}}
  - text: "read"
`, target, filepath.Join(dir, "missing.txt")))
	s := newTestSession(t, p, Options{Cwd: dir})
	sub := s.Subscribe()
	for _, tc := range []struct {
		prompt string
		kinds  []string
		tools  []string
	}{
		{"first", []string{"chat:user", "chat:assistant", "event:usage-summary"}, nil},
		{"second", []string{"chat:user", "chat:assistant", "event:tool-start", "event:tool-start", "event:tool-end", "event:tool-end",
			"chat:tool", "chat:tool", "chat:assistant", "event:tool-summary", "event:usage-summary"}, []string{"c1:success", "c2:error"}},
	} {
		sent, err := s.Submit(tc.prompt)
		if err != nil {
			t.Fatal(err)
		}
		events := until(t, sub, ends(sent.PromptID))
		res := events[len(events)-1].Result
		hist, ok := res.History()
		if !ok {
			t.Fatalf("%s: no history delta", tc.prompt)
		}
		got := entryKinds(hist)
		// The two Reads run at once: their start and end entries may interleave either way.
		slices.Sort(got)
		want := slices.Clone(tc.kinds)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: history delta %v, want %v", tc.prompt, entryKinds(hist), tc.kinds)
		}
		var tools []string
		for _, tl := range res.Tools {
			if tl.IsRunning {
				t.Fatalf("%s: tool %s still running in the result", tc.prompt, tl.ToolUseID)
			}
			tools = append(tools, tl.ToolUseID+":"+tl.Result)
		}
		if !slices.Equal(tools, tc.tools) {
			t.Fatalf("%s: result tools %v, want %v", tc.prompt, tools, tc.tools)
		}
	}
}

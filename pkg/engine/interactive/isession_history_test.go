package interactive_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	. "github.com/robota-sdk/robota-go/pkg/engine/interactive"

	"github.com/robota-sdk/robota-go/pkg/engine/session"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
)

func entryKinds(entries []session.HistoryEntry) []string {
	var out []string
	for _, e := range entries {
		out = append(out, e.Category+":"+e.Type)
	}
	return out
}

// The history holds the chat messages and, in order, an entry per tool start and end,
// the prompt's tool summary and usage summary; it is saved with the session, and a
// compaction opens the timeline again with its entry.
func TestHistoryEntriesArePersisted(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(target, []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := scriptProvider(t, fmt.Sprintf(`
turns:
  - toolCalls:
      - {id: c1, name: Read, input: {file_path: %[1]q}}
    usage: {inputTokens: 100, outputTokens: 10}
  - toolCalls:
      - {id: c2, name: Edit, input: {file_path: %[1]q, old_string: "two", new_string: "2\n2b"}}
    usage: {inputTokens: 150, outputTokens: 10}
  - text: "edited"
    usage: {inputTokens: 200, outputTokens: 5}
  - when: {compaction: true}
    text: "[Context Summary] a.txt was edited"
`, target))
	s := newTestSession(t, p, Options{Cwd: dir, PermissionMode: "acceptEdits"})
	sub := s.Subscribe()
	sent, _ := s.Submit("edit a.txt")
	events := until(t, sub, ends(sent.PromptID))
	if end := events[len(events)-1]; end.Type != EventComplete {
		t.Fatalf("ended %s %+v", end.Type, end.Result)
	}
	want := []string{"chat:system", "chat:user",
		"chat:assistant", "event:tool-start", "event:tool-end", "chat:tool",
		"chat:assistant", "event:tool-start", "event:tool-end", "chat:tool",
		"chat:assistant", "event:tool-summary", "event:usage-summary"}
	hist := s.History()
	if got := entryKinds(hist); !slices.Equal(got, want) {
		t.Fatalf("history\n got %v\nwant %v", got, want)
	}
	var summary struct {
		Summary string
		Tools   []ToolState
	}
	var usage UsageSnapshot
	var editEnd []byte
	for _, e := range hist {
		switch e.Type {
		case EntryToolEnd:
			editEnd = bytes.ReplaceAll(e.Data, []byte(dir), []byte("$DIR")) // the last is the Edit's
		case EntryToolSummary:
			_ = json.Unmarshal(e.Data, &summary)
		case EntryUsageSummary:
			_ = json.Unmarshal(e.Data, &usage)
		}
	}
	// The Edit's diff: its hunk, the unchanged lines around it read from the edited file,
	// and the change (spec: diff lines of type hunk, context, remove, add).
	wantDiff := []DiffLine{{"hunk", 1, "@@ -1,3 +1,4 @@"}, {"context", 1, "one"}, {"remove", 2, "two"},
		{"add", 2, "2"}, {"add", 3, "2b"}, {"context", 4, "three"}}
	if len(summary.Tools) != 2 || summary.Tools[1].ToolName != "Edit" || summary.Tools[1].DiffFile != target ||
		!slices.Equal(summary.Tools[1].DiffLines, wantDiff) || summary.Summary != "2 tool calls (2 success)" {
		t.Fatalf("tool summary %+v", summary)
	}
	// The Edit's tool-end entry as saved: diff lines keyed by the spec's type.
	goldenJSON(t, "edit_tool_end.json", editEnd)
	if usage.Kind != "exact" || usage.Scope != "turn" || usage.PromptTokens != 450 || usage.CompletionTokens != 25 ||
		usage.TotalTokens != 475 || usage.ContextMaxTokens == 0 || usage.CostStatus != "unknown" {
		t.Fatalf("usage summary %+v", usage)
	}

	// Saved with the session: the stored timeline holds the same entries.
	rec, err := store.NewFileStore(store.ProjectDir(dir), store.Options{}).Load(context.Background(), s.ID())
	if err != nil {
		t.Fatal(err)
	}
	timeline, err := rec.Timeline()
	if err != nil {
		t.Fatal(err)
	}
	var stored []session.HistoryEntry
	for _, raw := range timeline {
		var e session.HistoryEntry
		if err := json.Unmarshal(raw, &e); err != nil {
			t.Fatal(err)
		}
		stored = append(stored, e)
	}
	if got := entryKinds(stored); !slices.Equal(got, want) {
		t.Fatalf("stored history\n got %v\nwant %v", got, want)
	}

	// A manual compaction replaces the timeline; its entry opens the new one.
	if err := s.Compact(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	compaction := until(t, sub, isType(EventCompaction))
	if c := compaction[len(compaction)-1]; c.Compaction.Trigger != session.TriggerManual || c.PromptID != "" {
		t.Fatalf("compaction event %+v", c)
	}
	if got := entryKinds(s.History()); !slices.Contains(got, "event:compaction") || slices.Contains(got, "event:tool-start") {
		t.Fatalf("history after compaction %v", got)
	}
}

// A prompt's result carries the spec's contextState (the window when it ended) and its
// usage snapshot, the same record as its usage-summary entry; without provider usage
// the snapshot is absent and the context state is still there.
func TestResultContextStateAndUsage(t *testing.T) {
	s := newTestSession(t, scriptProvider(t, `
turns:
  - when: {lastUserContains: "counted"}
    text: "counted answer"
    usage: {inputTokens: 120, outputTokens: 8}
  - text: "uncounted answer"
    usage: {inputTokens: 0, outputTokens: 0}
`), Options{})
	sub := s.Subscribe()
	for _, tc := range []struct {
		prompt    string
		wantUsage *UsageSnapshot // context fields filled in from the end state
	}{
		{"counted", &UsageSnapshot{Kind: "exact", Scope: "turn", PromptTokens: 120, CompletionTokens: 8, TotalTokens: 128, CostStatus: "unknown"}},
		{"not this time", nil},
	} {
		sent, err := s.Submit(tc.prompt)
		if err != nil {
			t.Fatal(err)
		}
		evs := until(t, sub, ends(sent.PromptID))
		res := evs[len(evs)-1].Result
		st := s.Session().ContextState()
		if res.ContextState != st || st.MaxTokens == 0 || st.UsedTokens == 0 {
			t.Fatalf("%s: contextState %+v, session's %+v", tc.prompt, res.ContextState, st)
		}
		if tc.wantUsage == nil {
			if res.UsageSnapshot != nil {
				t.Fatalf("%s: usage snapshot %+v without provider usage", tc.prompt, *res.UsageSnapshot)
			}
			continue
		}
		want := *tc.wantUsage
		want.ContextUsedTokens, want.ContextMaxTokens, want.ContextUsedPercentage = st.UsedTokens, st.MaxTokens, st.UsedPercentage
		if res.UsageSnapshot == nil || *res.UsageSnapshot != want {
			t.Fatalf("%s: usage snapshot %+v, want %+v", tc.prompt, res.UsageSnapshot, want)
		}
		// The same record as the prompt's usage-summary entry.
		hist, ok := res.History()
		if !ok {
			t.Fatal("no history delta")
		}
		var entry UsageSnapshot
		for _, e := range hist {
			if e.Type == EntryUsageSummary {
				if err := json.Unmarshal(e.Data, &entry); err != nil {
					t.Fatal(err)
				}
			}
		}
		if entry != want {
			t.Fatalf("%s: usage-summary entry %+v, want %+v", tc.prompt, entry, want)
		}
		b, err := json.Marshal(res)
		if err != nil || !strings.Contains(string(b), `"contextState":{"maxTokens":`) || !strings.Contains(string(b), `"usageSnapshot":{"kind":"exact"`) {
			t.Fatalf("result JSON %s, %v", b, err)
		}
	}
}

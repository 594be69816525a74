package search

import (
	"os/exec"
	"strings"
	"testing"
)

// TestFileTypesCoverRipgrep checks that each type Grep shares with the installed ripgrep
// matches at least the files ripgrep's own definition matches.
func TestFileTypesCoverRipgrep(t *testing.T) {
	out, err := exec.Command(ripgrepForTest(t), "--type-list").Output()
	if err != nil {
		t.Fatal(err)
	}
	shared := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		name, globList, ok := strings.Cut(line, ": ")
		if !ok {
			continue
		}
		ours, known := fileTypes.Get()[name]
		if !known {
			continue
		}
		shared++
		for _, g := range strings.Split(globList, ", ") {
			if !contains(ours, g) {
				t.Errorf("type %s: ripgrep has %q, ours %v", name, g, ours)
			}
		}
	}
	if shared < 50 {
		t.Fatalf("only %d types shared with ripgrep", shared)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestFormatCapsOutputAtLineBoundary(t *testing.T) {
	var results []fileResult
	for i := 0; i < 2000; i++ {
		results = append(results, fileResult{path: "/ws/" + strings.Repeat("p", 40), count: 1,
			lines: []resultLine{{num: i + 1, text: "matching text", match: true}}})
	}
	out := formatResults(results, ModeContent, true, false, 0)
	if !out.truncated {
		t.Fatal("output not marked truncated")
	}
	body, note, ok := strings.Cut(out.text, "\n\n(Output cut at 30000 characters: showing ")
	if !ok || len(body) > maxGrepOutput {
		t.Fatalf("body %d chars, note found %v", len(body), ok)
	}
	if !strings.HasSuffix(body, "matching text") {
		t.Fatalf("body does not end at a line boundary: %q", body[len(body)-30:])
	}
	if !strings.HasSuffix(note, " of 2000 entries. Use head_limit, a narrower path, glob or type, or a more specific pattern.)") {
		t.Fatalf("note = %q", note)
	}
}

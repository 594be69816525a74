package contextload

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestExtractCompactInstructions(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"none", "# Rules\n\nNo section here.\n", ""},
		{"h2 until next h2", "# P\n## Compact Instructions\nKeep A.\n### Detail\nKeep B.\n## Next\nnot this\n",
			"Keep A.\n### Detail\nKeep B."},
		{"h1 runs to the end", "# Compact instructions\n\nOnly this.\n\n## Sub\nAnd this.\n", "Only this.\n\n## Sub\nAnd this."},
		{"case and spacing", "## compact   INSTRUCTIONS for summaries\nx\n", "x"},
		{"heading inside a fence is text", "## Compact Instructions\n```md\n# not a heading\n```\nafter\n## End\n",
			"```md\n# not a heading\n```\nafter"},
		{"fenced heading does not start a section", "```\n## Compact Instructions\n```\ntext\n", ""},
		{"two sections", "## Compact Instructions\none\n## Other\nx\n## Compact Instructions\ntwo\n", "one\n\ntwo"},
		{"empty section", "## Compact Instructions\n\n## Other\n", ""},
		{"CRLF", "## Compact Instructions\r\nkeep\r\n## Other\r\n", "keep"},
		{"not a heading without space", "##Compact Instructions\nx\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ExtractCompactInstructions(tt.in); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// The acceptance point: the compact instructions of CLAUDE.md reach the compaction prompt.
func TestCompactInstructionsReachCompactionPrompt(t *testing.T) {
	tmp := t.TempDir()
	tree(t, tmp, map[string]string{
		"p/CLAUDE.md": "# Project\n\nUse tabs.\n\n## Compact Instructions\n\nAlways keep the list of migrated tables.\n\n## Other\n\nIrrelevant.\n",
	})
	c, err := Load(Options{Cwd: filepath.Join(tmp, "p"), StopAt: tmp})
	if err != nil {
		t.Fatal(err)
	}
	instructions := c.CompactionInstructions("focus on the API changes")
	prompt := BuildCompactionPrompt(CompactionRequest{Transcript: "user: migrate users table\nassistant: done", Instructions: instructions})
	golden(t, "compaction_prompt.golden", tmp, prompt)
	for _, want := range []string{"Always keep the list of migrated tables.", "focus on the API changes", "user: migrate users table"} {
		if !strings.Contains(prompt, want) {
			t.Errorf("compaction prompt lacks %q", want)
		}
	}
	if strings.Contains(prompt, "Irrelevant") || strings.Contains(prompt, "Use tabs") {
		t.Errorf("compaction prompt carries more than the section")
	}
	// Without instructions nor focus, the block is absent rather than empty.
	if p := BuildCompactionPrompt(CompactionRequest{Transcript: "x"}); strings.Contains(p, "compact-instructions") {
		t.Errorf("empty instructions rendered: %q", p)
	}
	if got := (&Context{}).CompactionInstructions("  "); got != "" {
		t.Errorf("blank focus gave %q", got)
	}
}

package contextload

import (
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

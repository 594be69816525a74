package contextload

import (
	"strings"

	"github.com/robota-sdk/robota-go/internal/lazy"
)

// Compiled on first use, not at start-up: every robota run, --version included, pays for
// package initialisation (PERF-NOTES.md).
var compactHeading = lazy.NewRegexp(`(?i)\bcompact\s+instructions\b`)

// ExtractCompactInstructions returns the body of every Markdown section whose heading
// (any level) contains "Compact Instructions": the lines after the heading up to the
// next heading of the same or a higher level, outside fenced code blocks. Several
// sections are joined by a blank line. Empty when there is none.
func ExtractCompactInstructions(content string) string {
	var sections []string
	var cur []string
	level := 0 // level of the section being captured; 0: not capturing
	fence := ""
	flush := func() {
		if s := strings.TrimSpace(strings.Join(cur, "\n")); s != "" {
			sections = append(sections, s)
		}
		cur, level = nil, 0
	}
	for _, line := range strings.Split(strings.ReplaceAll(content, "\r\n", "\n"), "\n") {
		if f := fenceMarker(line); f != "" {
			if fence == "" {
				fence = f
			} else if strings.HasPrefix(f, fence) {
				fence = ""
			}
		} else if m := headingLine.FindStringSubmatch(line); m != nil && fence == "" {
			if level > 0 && len(m[1]) <= level {
				flush()
			}
			if level == 0 && compactHeading.MatchString(m[2]) {
				level = len(m[1])
				continue
			}
		}
		if level > 0 {
			cur = append(cur, line)
		}
	}
	if level > 0 {
		flush()
	}
	return strings.Join(sections, "\n\n")
}

// compactInstructionsOf extracts the sections of every loaded file, in prompt order.
func compactInstructionsOf(files []File) string {
	var parts []string
	for _, f := range files {
		if s := ExtractCompactInstructions(f.Content); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n\n")
}

package contextload

import (
	"regexp"
	"strings"
)

var compactHeading = regexp.MustCompile(`(?i)\bcompact\s+instructions\b`)

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

// CompactionInstructions is what the session passes to its compaction prompt: the
// project's Compact Instructions, plus the user's /compact focus when given.
func (c *Context) CompactionInstructions(focus string) string {
	return joinNonEmpty("\n\n", c.CompactInstructions, strings.TrimSpace(focus))
}

// CompactionRequest is the input of BuildCompactionPrompt.
type CompactionRequest struct {
	// Transcript is the conversation to summarise, already rendered as text.
	Transcript string
	// Instructions are Context.CompactionInstructions(focus).
	Instructions string
}

// BuildCompactionPrompt renders the summarisation prompt with the project's
// instructions in it. It is a stand-in until the session package's compaction
// orchestrator owns the prompt; whichever builds it must keep Instructions in it.
func BuildCompactionPrompt(req CompactionRequest) string {
	var b strings.Builder
	b.WriteString("Summarize the conversation below so that work can continue from the summary alone. ")
	b.WriteString("Keep the user's requests and goals, decisions made, files and code changed, and the current state and next steps.\n")
	if s := strings.TrimSpace(req.Instructions); s != "" {
		b.WriteString("\n<compact-instructions>\n")
		b.WriteString(s)
		b.WriteString("\n</compact-instructions>\n")
	}
	b.WriteString("\n<conversation>\n")
	b.WriteString(strings.TrimSpace(req.Transcript))
	b.WriteString("\n</conversation>\n")
	return b.String()
}

func joinNonEmpty(sep string, parts ...string) string {
	var keep []string
	for _, p := range parts {
		if strings.TrimSpace(p) != "" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, sep)
}

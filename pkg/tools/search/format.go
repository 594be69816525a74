package search

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/robota-sdk/robota-go/pkg/tools/internal/toolkit"
)

// Output limits shared by Grep's modes.
const (
	maxGrepLine   = 2000   // characters shown of one matching or context line
	maxGrepOutput = 30_000 // characters of output before the rest is cut at a line boundary
)

// grepOutput is the rendered result and what it says in numbers.
type grepOutput struct {
	text       string
	files      int
	lines      int // matching lines in all files
	truncated  bool
	headLimits bool
}

// sortResults orders results: by modification time, newest first, for files_with_matches
// (the files a user touched last are the likeliest answers), by path otherwise.
func sortResults(results []fileResult, mode string) {
	if mode != ModeFiles {
		sort.Slice(results, func(i, j int) bool { return results[i].path < results[j].path })
		return
	}
	mtimes := make(map[string]int64, len(results))
	for _, r := range results {
		if fi, err := os.Stat(r.path); err == nil {
			mtimes[r.path] = fi.ModTime().UnixNano()
		}
	}
	sort.Slice(results, func(i, j int) bool {
		a, b := mtimes[results[i].path], mtimes[results[j].path]
		if a != b {
			return a > b
		}
		return results[i].path < results[j].path
	})
}

func formatResults(results []fileResult, mode string, lineNumbers bool, context bool, headLimit int) grepOutput {
	out := grepOutput{files: len(results)}
	for _, r := range results {
		out.lines += r.count
	}
	var body []string
	switch mode {
	case ModeFiles:
		if len(results) == 0 {
			out.text = "No files found"
			return out
		}
		for _, r := range results {
			body = append(body, r.path)
		}
	case ModeCount:
		if len(results) == 0 {
			out.text = "No matches found"
			return out
		}
		for _, r := range results {
			body = append(body, fmt.Sprintf("%s:%d", r.path, r.count))
		}
	default:
		if len(results) == 0 {
			out.text = "No matches found"
			return out
		}
		body = contentLines(results, lineNumbers, context)
	}
	total := countEntries(body)
	if headLimit > 0 && total > headLimit {
		body = firstEntries(body, headLimit)
		out.headLimits = true
	}
	body, out.truncated = capLines(body, maxGrepOutput)
	var b strings.Builder
	switch mode {
	case ModeFiles:
		fmt.Fprintf(&b, "Found %s\n", toolkit.Plural(len(results), "file", "files"))
	}
	b.WriteString(strings.Join(body, "\n"))
	shown := countEntries(body)
	if mode == ModeCount {
		fmt.Fprintf(&b, "\n\nFound %s across %s.", toolkit.Plural(out.lines, "matching line", "matching lines"), toolkit.Plural(len(results), "file", "files"))
	}
	switch {
	case out.truncated:
		fmt.Fprintf(&b, "\n\n(Output cut at %d characters: showing %d of %d entries. Use head_limit, a narrower path, glob or type, or a more specific pattern.)", maxGrepOutput, shown, total)
	case out.headLimits:
		fmt.Fprintf(&b, "\n\n(Showing the first %d of %d entries because of head_limit.)", headLimit, total)
	}
	out.text = b.String()
	return out
}

// contentLines renders "path:N:text" for matches and "path-N-text" for context, with "--"
// between groups that are not adjacent (and between files when context is shown).
func contentLines(results []fileResult, lineNumbers, context bool) []string {
	var body []string
	for fi, r := range results {
		sort.Slice(r.lines, func(i, j int) bool { return r.lines[i].num < r.lines[j].num })
		if fi > 0 && context {
			body = append(body, "--")
		}
		prev := 0
		for _, l := range r.lines {
			if prev != 0 && l.num > prev+1 {
				body = append(body, "--")
			}
			prev = l.num
			sep := "-"
			if l.match {
				sep = ":"
			}
			text := strings.ToValidUTF8(strings.TrimSuffix(l.text, "\r"), "\uFFFD")
			text = toolkit.TruncateLine(strings.ReplaceAll(text, "\x00", `\0`), maxGrepLine)
			if lineNumbers {
				body = append(body, fmt.Sprintf("%s%s%d%s%s", r.path, sep, l.num, sep, text))
			} else {
				body = append(body, r.path+sep+text)
			}
		}
	}
	return body
}

// capLines keeps whole lines up to max characters.
func capLines(lines []string, max int) ([]string, bool) {
	n := 0
	for i, l := range lines {
		n += len(l) + 1
		if n > max && i > 0 {
			return lines[:i], true
		}
	}
	return lines, false
}

// countEntries counts output lines other than "--" group separators.
func countEntries(body []string) int {
	n := 0
	for _, l := range body {
		if l != "--" {
			n++
		}
	}
	return n
}

// firstEntries keeps the first n entries (and the separators between them).
func firstEntries(body []string, n int) []string {
	for i, l := range body {
		if l == "--" {
			continue
		}
		if n == 0 {
			body = body[:i]
			break
		}
		n--
	}
	for len(body) > 0 && body[len(body)-1] == "--" {
		body = body[:len(body)-1]
	}
	return body
}

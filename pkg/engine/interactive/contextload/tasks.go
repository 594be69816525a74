package contextload

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/robota-sdk/robota-go/internal/lazy"
)

// TasksDir is the task directory, relative to the project root.
var TasksDir = ".agents" + sep + "tasks"

// maxOpenItems bounds the unchecked items listed per task.
const maxOpenItems = 10

// Task is the metadata of one task file.
type Task struct {
	// Path is absolute; RelPath is relative to the project root, slash-separated.
	Path, RelPath string
	Title         string
	// Status is normalised: lower case, words joined by '-' ("in-progress").
	Status    string
	Branch    string
	Scope     string
	Objective string
	// OpenItems are the unchecked completion items.
	OpenItems []string
}

const unknownRank = 2

// statusRank is a task status's rank for selection; a status not listed ranks with
// "unknown".
func statusRank(status string) int {
	switch status {
	case "in-progress":
		return 0
	case "todo":
		return 1
	}
	return unknownRank
}

// DiscoverTasks lists the direct Markdown files of .agents/tasks under root, sorted by
// name, without README.md (files under completed/ are not direct files). A file that
// leaves root through a link is left out (see Load).
func DiscoverTasks(root string) []Task {
	out, _ := discoverTasks(root, projectFileCheck(root, "", nil))
	return out
}

// discoverTasks is DiscoverTasks with the check every task file must pass (it goes into
// the system prompt): one it refuses is left out and named in a diagnostic.
func discoverTasks(root string, check func(path string) error) ([]Task, []Diagnostic) {
	dir := filepath.Join(root, TasksDir)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil
	}
	var out []Task
	var diags []Diagnostic
	for _, e := range entries {
		name := e.Name()
		if !strings.EqualFold(filepath.Ext(name), ".md") || strings.EqualFold(name, "README.md") {
			continue
		}
		p := filepath.Join(dir, name)
		if !isRegular(p) {
			continue
		}
		if err := check(p); err != nil {
			diags = append(diags, Diagnostic{File: filepath.ToSlash(filepath.Join(TasksDir, name)), Err: err})
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil || len(data) > MaxFileBytes {
			continue
		}
		t := ParseTask(string(data))
		t.Path = p
		t.RelPath = filepath.ToSlash(filepath.Join(TasksDir, name))
		if t.Title == "" {
			t.Title = strings.TrimSuffix(name, filepath.Ext(name))
		}
		out = append(out, t)
	}
	return out, diags
}

// Compiled on first use, not at start-up: every robota run, --version included, pays for
// package initialisation (PERF-NOTES.md).
var (
	headingLine  = lazy.NewRegexp(`^(#{1,6})\s+(.*?)\s*#*\s*$`)
	metadataLine = lazy.NewRegexp(`^\s*(?:[-*]\s+)?\*\*([A-Za-z][A-Za-z ]*?)(?::\*\*|\*\*\s*:)\s*(.*?)\s*$`)
	checkboxLine = lazy.NewRegexp(`^\s*[-*+]\s+\[([ xX])\]\s+(.*?)\s*$`)
	completionHd = lazy.NewRegexp(`(?i)completion|definition of done|done criteria|acceptance`)
)

// ParseTask reads a task file's title (first `#` heading), `**Status**`, `**Branch**`
// and `**Scope**` metadata, the first paragraph under an Objective heading, and the
// unchecked items of its completion section (or of the whole file when it has none).
// A YAML frontmatter's status, title, branch, scope and objective keys win over the
// Markdown's; a frontmatter that is not valid YAML is skipped.
func ParseTask(content string) Task {
	front, body := taskFrontmatter(content)
	t := parseTaskBody(body)
	for key, dst := range map[string]*string{"title": &t.Title, "branch": &t.Branch, "scope": &t.Scope, "objective": &t.Objective} {
		if v := oneLineValue(front[key]); v != "" {
			*dst = v
		}
	}
	if v := oneLineValue(front["status"]); v != "" {
		t.Status = NormalizeStatus(v)
	}
	return t
}

// parseTaskBody reads the Markdown part of a task file (ParseTask).
func parseTaskBody(content string) Task {
	var t Task
	var section string
	var objective []string
	var completionItems, allItems []string
	hasCompletion := false
	fence := ""
	for _, line := range strings.Split(strings.ReplaceAll(content, "\r\n", "\n"), "\n") {
		if f := fenceMarker(line); f != "" {
			if fence == "" {
				fence = f
			} else if strings.HasPrefix(f, fence) {
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		if m := headingLine.FindStringSubmatch(line); m != nil {
			if t.Title == "" && len(m[1]) == 1 {
				t.Title = m[2]
			}
			section = m[2]
			if completionHd.MatchString(section) {
				hasCompletion = true
			}
			continue
		}
		if m := metadataLine.FindStringSubmatch(line); m != nil {
			switch strings.ToLower(strings.TrimSpace(m[1])) {
			case "status":
				if t.Status == "" {
					t.Status = NormalizeStatus(m[2])
				}
				continue
			case "branch":
				if t.Branch == "" {
					t.Branch = strings.Trim(m[2], "` ")
				}
				continue
			case "scope":
				if t.Scope == "" {
					t.Scope = strings.Trim(m[2], " ")
				}
				continue
			}
		}
		if m := checkboxLine.FindStringSubmatch(line); m != nil {
			if m[1] == " " && m[2] != "" {
				allItems = append(allItems, m[2])
				if completionHd.MatchString(section) {
					completionItems = append(completionItems, m[2])
				}
			}
			continue
		}
		if strings.EqualFold(strings.TrimSpace(section), "objective") && t.Objective == "" {
			if s := strings.TrimSpace(line); s != "" {
				objective = append(objective, s)
			} else if len(objective) > 0 {
				t.Objective = strings.Join(objective, " ")
			}
		}
	}
	if t.Objective == "" && len(objective) > 0 {
		t.Objective = strings.Join(objective, " ")
	}
	t.OpenItems = allItems
	if hasCompletion {
		t.OpenItems = completionItems
	}
	if len(t.OpenItems) > maxOpenItems {
		t.OpenItems = t.OpenItems[:maxOpenItems]
	}
	return t
}

// NormalizeStatus lower-cases a status and joins its words with '-'; "done" and
// "complete" read as "completed".
func NormalizeStatus(s string) string {
	s = strings.ToLower(strings.Trim(s, "`*_ \t"))
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '_' || r == '-' }), "-")
	switch s {
	case "done", "complete":
		return "completed"
	}
	return s
}

// SelectTasks drops completed tasks and keeps at most max: tasks of the current branch
// first, then in-progress, todo, and any other status; file order breaks ties.
func SelectTasks(tasks []Task, branch string, max int) []Task {
	var out []Task
	for _, t := range tasks {
		if t.Status != "completed" {
			out = append(out, t)
		}
	}
	rank := func(t Task) (int, int) {
		b := 1
		if branch != "" && t.Branch == branch {
			b = 0
		}
		return b, statusRank(t.Status)
	}
	sort.SliceStable(out, func(i, j int) bool {
		bi, si := rank(out[i])
		bj, sj := rank(out[j])
		if bi != bj {
			return bi < bj
		}
		return si < sj
	})
	if max > 0 && len(out) > max {
		out = out[:max]
	}
	return out
}

// FormatTaskContext renders tasks as neutral Markdown: metadata only, no instructions.
func FormatTaskContext(tasks []Task) string {
	var b strings.Builder
	for i, t := range tasks {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "### %s\n", t.Title)
		fmt.Fprintf(&b, "- **Path:** `%s`\n", t.RelPath)
		for _, kv := range [][2]string{{"Status", t.Status}, {"Branch", t.Branch}, {"Scope", t.Scope}, {"Objective", t.Objective}} {
			if kv[1] != "" {
				fmt.Fprintf(&b, "- **%s:** %s\n", kv[0], kv[1])
			}
		}
		if len(t.OpenItems) > 0 {
			b.WriteString("- **Open items:**\n")
			for _, item := range t.OpenItems {
				fmt.Fprintf(&b, "  - %s\n", item)
			}
		}
	}
	return b.String()
}

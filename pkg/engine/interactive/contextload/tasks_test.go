package contextload

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestDiscoverTasks(t *testing.T) {
	tmp := t.TempDir()
	tree(t, tmp, map[string]string{
		".agents/tasks/B-2.md":            "# B\n",
		".agents/tasks/A-1.md":            "no heading\n- **Status:** Todo\n",
		".agents/tasks/README.md":         "# Tasks\n",
		".agents/tasks/notes.txt":         "x\n",
		".agents/tasks/completed/DONE.md": "# Done\n",
	})
	var got []string
	for _, task := range DiscoverTasks(tmp) {
		got = append(got, task.RelPath+" "+task.Title+" "+task.Status)
	}
	want := []string{".agents/tasks/A-1.md A-1 todo", ".agents/tasks/B-2.md B "}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestParseTask(t *testing.T) {
	in := strings.Join([]string{
		"# CLI-BL-001: Example",
		"",
		"- **Status**: In Progress",
		"- **Branch**: `feat/example`",
		"- **Scope:** packages/agent-sdk",
		"",
		"## Objective",
		"",
		"Inject task context",
		"into the prompt.",
		"",
		"Second paragraph is not the objective.",
		"",
		"## Notes",
		"- [ ] not a completion item",
		"",
		"## Requirements for Completion (Definition of Done)",
		"",
		"- [ ] Load task files",
		"- [x] Ignore completed work",
		"* [ ] Verify prompt output",
		"```",
		"- [ ] inside a fence",
		"```",
	}, "\n")
	got := ParseTask(in)
	want := Task{Title: "CLI-BL-001: Example", Status: "in-progress", Branch: "feat/example",
		Scope: "packages/agent-sdk", Objective: "Inject task context into the prompt.",
		OpenItems: []string{"Load task files", "Verify prompt output"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	// Without a completion section, every unchecked item counts.
	if got := ParseTask("# T\n- [ ] a\n- [x] b\n- [ ] c\n").OpenItems; !reflect.DeepEqual(got, []string{"a", "c"}) {
		t.Errorf("open items = %q", got)
	}
}

func TestSelectTasks(t *testing.T) {
	tasks := []Task{
		{Title: "A", Status: "todo", Branch: "feat/other"},
		{Title: "C", Status: "in-progress"},
		{Title: "B", Status: "in-progress", Branch: "feat/current"},
		{Title: "D", Status: "completed", Branch: "feat/current"},
		{Title: "E", Status: "blocked"},
		{Title: "F"},
		{Title: "G", Status: "todo"},
	}
	titles := func(ts []Task) string {
		var s []string
		for _, t := range ts {
			s = append(s, t.Title)
		}
		return strings.Join(s, ",")
	}
	for _, tt := range []struct {
		branch string
		max    int
		want   string
	}{
		{"feat/current", 2, "B,C"},
		{"feat/other", 3, "A,C,B"},
		{"", 10, "C,B,A,G,E,F"},
		{"feat/current", 0, "B,C,A,G,E,F"},
	} {
		if got := titles(SelectTasks(tasks, tt.branch, tt.max)); got != tt.want {
			t.Errorf("branch %q max %d: got %s, want %s", tt.branch, tt.max, got, tt.want)
		}
	}
}

func TestFormatTaskContextIsNeutral(t *testing.T) {
	out := FormatTaskContext([]Task{{Title: "T-1: X", RelPath: ".agents/tasks/T-1.md", Status: "todo",
		Objective: "Keep the agent focused.", OpenItems: []string{"Verify prompt output"}}})
	golden(t, "task_context.golden", "\x00", out)
	lower := strings.ToLower(out)
	for _, word := range []string{"you must", "always", "should", "never"} {
		if strings.Contains(lower, word) {
			t.Errorf("task context contains behaviour text %q", word)
		}
	}
}

func TestTasksUseCurrentBranchFromGit(t *testing.T) {
	tmp := t.TempDir()
	gitdir := filepath.Join(tmp, "main.git", "worktrees", "p")
	tree(t, tmp, map[string]string{
		"p/.git":                    "gitdir: " + gitdir + "\n",
		"main.git/worktrees/p/HEAD": "ref: refs/heads/feat/b\n",
		"p/.agents/tasks/1-a.md":    "# A\n- **Status**: in-progress\n- **Branch**: feat/a\n",
		"p/.agents/tasks/2-b.md":    "# B\n- **Status**: todo\n- **Branch**: feat/b\n",
	})
	opts := Options{Cwd: filepath.Join(tmp, "p"), StopAt: tmp, MaxTasks: 1}
	c, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	if c.Git.Branch != "feat/b" || len(c.Tasks) != 1 || c.Tasks[0].Title != "B" {
		t.Errorf("git %+v tasks %+v", c.Git, c.Tasks)
	}
	opts.CurrentBranch = "feat/a"
	if c, _ = Load(opts); c.Tasks[0].Title != "A" {
		t.Errorf("CurrentBranch override ignored: %+v", c.Tasks)
	}
}

package contextload

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var taskDay = time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)

func TestUpdateTaskText(t *testing.T) {
	cases := []struct {
		name, in, status, progress, want string
	}{
		{name: "metadata line replaced, progress section created",
			in:     "# T\n\n- **Status**: todo\n- **Branch**: main\n\n## Objective\n\nDo it.\n",
			status: "in progress", progress: "started  the work",
			want: "# T\n\n- **Status**: in-progress\n- **Branch**: main\n\n## Objective\n\nDo it.\n\n## Progress\n\n- 2026-11-28: started the work\n"},
		{name: "bold colon inside and existing progress section",
			in:     "# T\n**Status:** in-progress\n\n## Progress\n\n- 2026-11-01: a\n\n## Notes\nx\n",
			status: "completed", progress: "done",
			want: "# T\n**Status:** completed\n\n## Progress\n\n- 2026-11-01: a\n- 2026-11-28: done\n\n## Notes\nx\n"},
		{name: "status inserted under the title",
			in:     "# Title\n\nBody.\n",
			status: "todo",
			want:   "# Title\n\n- **Status**: todo\nBody.\n"},
		{name: "no title: status on top",
			in:     "Body.\n",
			status: "todo",
			want:   "- **Status**: todo\n\nBody.\n"},
		{name: "fenced status line is not the status",
			in:     "# T\n```\n- **Status**: fake\n```\n- **Status**: todo\n",
			status: "blocked",
			want:   "# T\n```\n- **Status**: fake\n```\n- **Status**: blocked\n"},
		{name: "frontmatter status key",
			in:     "---\ntitle: T\nstatus: todo # was\nbranch: b\n---\n# T\n- **Status**: stale\n",
			status: "done",
			want:   "---\ntitle: T\nstatus: completed\nbranch: b\n---\n# T\n- **Status**: stale\n"},
		{name: "frontmatter without status gets the key",
			in:     "---\ntitle: T\n---\nbody\n",
			status: "todo",
			want:   "---\ntitle: T\nstatus: todo\n---\nbody\n"},
		{name: "CRLF and BOM kept",
			in:     "\ufeff# T\r\n\r\n- **Status**: todo\r\n",
			status: "in-progress", progress: "go",
			want: "\ufeff# T\r\n\r\n- **Status**: in-progress\r\n\r\n## Progress\r\n\r\n- 2026-11-28: go\r\n"},
		{name: "empty progress section",
			in:     "# T\n- **Status**: todo\n## Progress\n",
			status: "todo", progress: "x",
			want: "# T\n- **Status**: todo\n## Progress\n\n- 2026-11-28: x\n"},
	}
	for _, c := range cases {
		got, err := UpdateTaskText(c.in, c.status, c.progress, taskDay)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
		if st := ParseTask(got).Status; st != NormalizeStatus(c.status) {
			t.Errorf("%s: parsed status %q", c.name, st)
		}
	}
	for _, bad := range []string{"", "two\nlines", strings.Repeat("x", 41), "-dash", "a;b"} {
		if _, err := UpdateTaskText("# T\n", bad, "", taskDay); !errors.Is(err, ErrTaskStatus) {
			t.Errorf("status %q: %v", bad, err)
		}
	}
	if _, err := UpdateTaskText("---\nstatus:\n  - a\n---\n", "todo", "", taskDay); !errors.Is(err, ErrTaskFormat) {
		t.Errorf("list status: %v", err)
	}
}

func TestParseTaskFrontmatter(t *testing.T) {
	task := ParseTask("---\nstatus: In Progress\nbranch: feat/x\nscope: pkg/a\ntitle: From front\n---\n# Heading\n- **Status**: todo\n## Objective\nGoal.\n- [ ] item\n")
	if task.Status != "in-progress" || task.Branch != "feat/x" || task.Scope != "pkg/a" || task.Title != "From front" || task.Objective != "Goal." || len(task.OpenItems) != 1 {
		t.Fatalf("%+v", task)
	}
}

func TestUpdateTaskFileStatus(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, TasksDir)
	if err := os.MkdirAll(filepath.Join(dir, "completed"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "T-1.md")
	if err := os.WriteFile(p, []byte("# Task one\n\n- **Status**: todo\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	task, err := UpdateTaskFileStatus(root, ".agents/tasks/T-1.md", "completed", TaskUpdateOptions{ProgressMessage: "Verified.", Now: func() time.Time { return taskDay }})
	if err != nil || task.Status != "completed" || task.RelPath != ".agents/tasks/T-1.md" || task.Title != "Task one" {
		t.Fatalf("%+v %v", task, err)
	}
	b, _ := os.ReadFile(p)
	if string(b) != "# Task one\n\n- **Status**: completed\n\n## Progress\n\n- 2026-11-28: Verified.\n" {
		t.Fatalf("file %q", b)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o640 {
		t.Fatalf("mode %v", st.Mode())
	}
	if left, _ := os.ReadDir(dir); len(left) != 2 { // T-1.md and completed/: no temp file
		t.Fatalf("tasks dir %v", left)
	}
	// A completed task drops out of the selection; back in progress, it is selected.
	if sel, text := LoadTaskContext(root, "", 0); len(sel) != 0 || text != "" {
		t.Fatalf("selected %+v", sel)
	}
	if _, err := UpdateTaskFileStatus(root, p, "in-progress", TaskUpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if sel, text := LoadTaskContext(root, "", 0); len(sel) != 1 || !strings.Contains(text, "- **Status:** in-progress") {
		t.Fatalf("selected %+v %q", sel, text)
	}
	outside := filepath.Join(t.TempDir(), "x.md")
	if err := os.WriteFile(outside, []byte("# x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"../x.md", ".agents/tasks/../../x.md", ".agents/tasks/completed/T-1.md", ".agents/tasks/README.md",
		".agents/tasks/notes.txt", outside, ".agents/tasks"} {
		if _, err := UpdateTaskFileStatus(root, bad, "todo", TaskUpdateOptions{}); !errors.Is(err, ErrTaskPath) {
			t.Errorf("%s: %v, want ErrTaskPath", bad, err)
		}
	}
	if _, err := UpdateTaskFileStatus(root, ".agents/tasks/link.md", "todo", TaskUpdateOptions{}); err == nil {
		t.Error("updated through a symlink leading out of the tasks directory")
	}
	if b, _ := os.ReadFile(outside); string(b) != "# x\n" {
		t.Errorf("outside file changed: %q", b)
	}
	if _, err := UpdateTaskFileStatus(root, ".agents/tasks/missing.md", "todo", TaskUpdateOptions{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
}

// FuzzUpdateTaskText: on any task text the update either fails, changing nothing, or sets
// the status ParseTask then reads, keeping every other line in order.
func FuzzUpdateTaskText(f *testing.F) {
	for _, s := range []string{"", "# T\n- **Status**: todo\n", "---\nstatus: x\n---\n", "---\n---\n", "```\n**Status**: a\n",
		"# T\r\n## Progress\r\n- a\r\n", "\ufeff---\ntitle: [\n---\n**Status:** b"} {
		f.Add(s, "in progress", "note")
	}
	f.Fuzz(func(t *testing.T, content, status, progress string) {
		out, err := UpdateTaskText(content, status, progress, taskDay)
		if err != nil {
			return
		}
		if got, want := ParseTask(out).Status, NormalizeStatus(strings.TrimSpace(status)); got != want {
			t.Fatalf("status %q after setting %q in %q → %q", got, want, content, out)
		}
		// Every original line is still there, in order, but at most one (the status);
		// blank lines at the end may go when a Progress section is added.
		in := strings.Split(strings.ReplaceAll(content, "\r\n", "\n"), "\n")
		rest := strings.Split(strings.ReplaceAll(out, "\r\n", "\n"), "\n")
		missing, j := 0, 0
		for _, l := range in {
			k := j
			for k < len(rest) && rest[k] != l {
				k++
			}
			if k == len(rest) {
				if strings.TrimSpace(l) != "" {
					missing++
				}
				continue
			}
			j = k + 1
		}
		if missing > 1 {
			t.Fatalf("%d lines lost: %q → %q", missing, content, out)
		}
	})
}

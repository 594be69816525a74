package contextload

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/robota-sdk/robota-go/internal/lazy"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive/frontmatter"
)

// Task status update errors.
var (
	// ErrTaskPath: the path is not a Markdown file directly under .agents/tasks.
	ErrTaskPath = errors.New("not a task file under .agents/tasks")
	// ErrTaskStatus: the status is empty or not one short line.
	ErrTaskStatus = errors.New("invalid task status")
	// ErrTaskFormat: the file's status cannot be updated without rewriting more of it.
	ErrTaskFormat = errors.New("task file cannot be updated")
)

// TaskUpdateOptions are UpdateTaskFileStatus's options.
type TaskUpdateOptions struct {
	// ProgressMessage, when set, is appended as a dated entry of the file's Progress
	// section (created at the end when there is none).
	ProgressMessage string
	// Now dates the progress entry; nil means time.Now.
	Now func() time.Time
}

var statusPattern = lazy.NewRegexp(`^[A-Za-z][A-Za-z0-9 _-]{0,39}$`)

// taskFrontmatter splits a task file's YAML frontmatter off (nil keys when it has none
// or it is not valid YAML) and returns the rest.
func taskFrontmatter(content string) (map[string]*yaml.Node, string) {
	front, body, found := frontmatter.Split([]byte(content))
	if !found {
		return nil, body
	}
	keys, err := frontmatter.Decode(front)
	if err != nil {
		return nil, body
	}
	return keys, body
}

func oneLineValue(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		return ""
	}
	return strings.Join(strings.Fields(n.Value), " ")
}

// UpdateTaskFileStatus sets the status of the task file at path (absolute, or relative
// to root) and, with opts.ProgressMessage, appends a dated progress entry (spec: Task
// Context Helpers, updateTaskFileStatus). The file must be a Markdown file directly under
// root/.agents/tasks; it is opened through an os.Root there, so neither the path nor a
// symlink reaches elsewhere. The status goes where ParseTask reads it: the frontmatter's
// status key, else the first **Status** line, else a new one (a frontmatter key when the
// file has a frontmatter, a "- **Status**:" line under the title otherwise). Every other
// line is kept as it was; the file is replaced atomically. It returns the updated task.
func UpdateTaskFileStatus(root, path, status string, opts TaskUpdateOptions) (Task, error) {
	dir := filepath.Join(root, TasksDir)
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(root, path)
	}
	rel, err := filepath.Rel(dir, filepath.Clean(abs))
	if err != nil || rel != filepath.Base(rel) || rel == "." || rel == ".." || !strings.EqualFold(filepath.Ext(rel), ".md") || strings.EqualFold(rel, "README.md") {
		return Task{}, fmt.Errorf("%w: %s", ErrTaskPath, path)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return Task{}, fmt.Errorf("task file %s: %w", path, err)
	}
	defer r.Close()
	st, err := r.Stat(rel)
	if err != nil {
		return Task{}, fmt.Errorf("task file %s: %w", path, err)
	}
	if !st.Mode().IsRegular() || st.Size() > MaxFileBytes {
		return Task{}, fmt.Errorf("%w: %s is not a regular file of at most %d bytes", ErrTaskPath, path, MaxFileBytes)
	}
	data, err := r.ReadFile(rel)
	if err != nil {
		return Task{}, fmt.Errorf("task file %s: %w", path, err)
	}
	out, err := UpdateTaskText(string(data), status, opts.ProgressMessage, opts.Now())
	if err != nil {
		return Task{}, fmt.Errorf("task file %s: %w", path, err)
	}
	if err := writeRootedAtomic(r, rel, []byte(out), st.Mode().Perm()); err != nil {
		return Task{}, fmt.Errorf("task file %s: %w", path, err)
	}
	t := ParseTask(out)
	t.Path, t.RelPath = filepath.Join(dir, rel), filepath.ToSlash(filepath.Join(TasksDir, rel))
	return t, nil
}

func writeRootedAtomic(r *os.Root, name string, data []byte, perm os.FileMode) error {
	var b [6]byte
	_, _ = rand.Read(b[:])
	tmp := "." + name + ".tmp-" + hex.EncodeToString(b[:])
	f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = r.Rename(tmp, name)
	}
	if err != nil {
		_ = r.Remove(tmp)
	}
	return err
}

// UpdateTaskText is UpdateTaskFileStatus on a file's text: it returns the text with the
// status set and, when progress is not empty, a progress entry dated now appended. A BOM
// and CRLF line ends are kept.
func UpdateTaskText(content, status, progress string, now time.Time) (string, error) {
	status = strings.TrimSpace(status)
	if !statusPattern.MatchString(status) {
		return "", fmt.Errorf("%w %q: one line of letters, digits, spaces, '-' or '_', at most 40 characters", ErrTaskStatus, status)
	}
	status = NormalizeStatus(status)
	bom := strings.HasPrefix(content, "\ufeff")
	crlf := strings.Contains(content, "\r\n")
	text := strings.ReplaceAll(strings.TrimPrefix(content, "\ufeff"), "\r\n", "\n")
	lines := strings.Split(text, "\n")

	var err error
	if lines, err = setStatus(lines, status); err != nil {
		return "", err
	}
	if progress = strings.Join(strings.Fields(progress), " "); progress != "" {
		lines = appendProgress(lines, "- "+now.Format(time.DateOnly)+": "+progress)
	}
	out := strings.Join(lines, "\n")
	if crlf {
		out = strings.ReplaceAll(out, "\n", "\r\n")
	}
	if bom {
		out = "\ufeff" + out
	}
	return out, nil
}

// frontmatterEnd returns the index of the closing "---" line when lines start with a
// frontmatter, else -1.
func frontmatterEnd(lines []string) int {
	if len(lines) == 0 || strings.TrimRight(lines[0], " \t") != "---" {
		return -1
	}
	for i := 1; i < len(lines); i++ {
		if strings.TrimRight(lines[i], " \t") == "---" {
			return i
		}
	}
	return -1
}

func setStatus(lines []string, status string) ([]string, error) {
	end := frontmatterEnd(lines)
	bodyStart := 0
	if end > 0 {
		bodyStart = end + 1 // as ParseTask, which reads the body only, valid YAML or not
		keys, err := frontmatter.Decode(strings.Join(lines[1:end], "\n"))
		if err == nil {
			if n := keys["status"]; n != nil {
				i := n.Line // 1-based within the frontmatter: lines[i] in the file
				if n.Kind != yaml.ScalarNode || i < 1 || i >= end || !strings.HasPrefix(strings.TrimSpace(lines[i]), "status:") ||
					(i+1 < end && strings.HasPrefix(lines[i+1], " ")) {
					return nil, fmt.Errorf("%w: its frontmatter status is not a one-line value", ErrTaskFormat)
				}
				key := lines[i][:strings.Index(lines[i], "status:")+len("status:")]
				lines[i] = key + " " + status
				return lines, nil
			}
			return insert(lines, end, "status: "+status), nil
		}
	}
	if i, loc := firstStatusLine(lines, bodyStart); i >= 0 {
		lines[i] = lines[i][:loc[0]] + status + lines[i][loc[1]:]
		return lines, nil
	}
	at := bodyStart
	for i := bodyStart; i < len(lines); i++ {
		if m := headingLine.FindStringSubmatch(lines[i]); m != nil && len(m[1]) == 1 {
			at = i + 1
			if at < len(lines) && strings.TrimSpace(lines[at]) == "" {
				return insert(lines, at+1, "- **Status**: "+status), nil
			}
			return insert(lines, at, "", "- **Status**: "+status), nil
		}
	}
	return insert(lines, at, "- **Status**: "+status, ""), nil
}

// firstStatusLine finds the **Status** line parseTaskBody reads (the same scan: fenced
// blocks skipped, headings are not metadata) and the span of its value.
func firstStatusLine(lines []string, from int) (int, []int) {
	fence := ""
	for i := from; i < len(lines); i++ {
		line := lines[i]
		if f := fenceMarker(line); f != "" {
			if fence == "" {
				fence = f
			} else if strings.HasPrefix(f, fence) {
				fence = ""
			}
			continue
		}
		if fence != "" || headingLine.MatchString(line) {
			continue
		}
		if m := metadataLine.FindStringSubmatchIndex(line); m != nil && strings.EqualFold(strings.TrimSpace(line[m[2]:m[3]]), "status") {
			return i, m[4:6]
		}
	}
	return -1, nil
}

var progressHd = lazy.NewRegexp(`(?i)^progress(?:\s+log)?$`)

// appendProgress adds entry at the end of the Progress section (outside fences), or a new
// section at the end of the file.
func appendProgress(lines []string, entry string) []string {
	fence, section, level := "", -1, 0
	last := -1 // last non-blank line of the Progress section
	for i, line := range lines {
		if f := fenceMarker(line); f != "" {
			if fence == "" {
				fence = f
			} else if strings.HasPrefix(f, fence) {
				fence = ""
			}
			if section >= 0 {
				last = i
			}
			continue
		}
		if fence == "" {
			if m := headingLine.FindStringSubmatch(line); m != nil {
				if section >= 0 && len(m[1]) <= level {
					break
				}
				if section < 0 && progressHd.MatchString(strings.TrimSpace(m[2])) {
					section, level, last = i, len(m[1]), i
					continue
				}
			}
		}
		if section >= 0 && strings.TrimSpace(line) != "" {
			last = i
		}
	}
	if section >= 0 && fence == "" {
		if last == section {
			return insert(lines, last+1, "", entry)
		}
		return insert(lines, last+1, entry)
	}
	// No section (or one left inside an unclosed fence): a new one at the end.
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) > 0 {
		lines = append(lines, "")
	}
	return append(lines, "## Progress", "", entry, "")
}

func insert(lines []string, at int, add ...string) []string {
	out := make([]string, 0, len(lines)+len(add))
	out = append(out, lines[:at]...)
	out = append(out, add...)
	return append(out, lines[at:]...)
}

// LoadTaskContext discovers the task files of root, selects at most maxTasks (0:
// DefaultMaxTasks) for branch as Load does, and formats them (spec: loadTaskContext).
func LoadTaskContext(root, branch string, maxTasks int) ([]Task, string) {
	if maxTasks <= 0 {
		maxTasks = DefaultMaxTasks
	}
	tasks := SelectTasks(DiscoverTasks(root), branch, maxTasks)
	return tasks, FormatTaskContext(tasks)
}

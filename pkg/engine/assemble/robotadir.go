package assemble

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrRobotaDirOutside is returned by Assemble when the project's .robota is a symlink
// leading outside the project: settings would be read from, and session records, logs and
// tool output written to, a place the project does not own.
var ErrRobotaDirOutside = errors.New(".robota leads outside the project")

// checkRobotaDir refuses a .robota that is a symlink whose target (resolved, or as written
// when it dangles) is not inside the project directory. A .robota that does not exist, is
// a real directory, or links within the project is fine.
func checkRobotaDir(cwd string) error {
	link := filepath.Join(cwd, ".robota")
	fi, err := os.Lstat(link)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return invalid("%s: %w", link, err)
	}
	if fi.Mode()&fs.ModeSymlink == 0 {
		return nil
	}
	project, err := filepath.EvalSymlinks(cwd)
	if err != nil {
		return invalid("working directory %s: %w", cwd, err)
	}
	target, err := filepath.EvalSymlinks(link)
	if err != nil {
		// A dangling link: creating .robota/sessions would follow it wherever it points.
		written, _ := os.Readlink(link)
		return invalid("%s is a symlink to %s, which does not exist: %w. Remove the link or point it at a directory inside %s",
			link, written, ErrRobotaDirOutside, project)
	}
	if !within(project, target) {
		return invalid("%s is a symlink to %s, outside the project %s: %w; robota will not read settings from or write sessions, logs and tool output there. Replace the link with a directory, or point it inside the project",
			link, target, project, ErrRobotaDirOutside)
	}
	return nil
}

// within reports whether path is dir or below it (both clean and absolute).
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

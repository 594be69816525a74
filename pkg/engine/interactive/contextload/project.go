package contextload

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// ProjectInfo is what the project's marker files say about it. Empty fields are unknown.
type ProjectInfo struct {
	// Type is the ecosystem: go, node, python, rust, java, ruby, php.
	Type string
	// Language is the main language: go, typescript, javascript, python, rust, java,
	// kotlin, ruby, php.
	Language string
	// Name is the module or package name when the marker file states one.
	Name string
	// PackageManager is set for node projects with a lock file.
	PackageManager string
}

// projectMarkers are checked in order; the first present wins.
var projectMarkers = []struct {
	file, typ, lang string
}{
	{"go.mod", "go", "go"},
	{"package.json", "node", "javascript"},
	{"Cargo.toml", "rust", "rust"},
	{"pyproject.toml", "python", "python"},
	{"setup.py", "python", "python"},
	{"requirements.txt", "python", "python"},
	{"pom.xml", "java", "java"},
	{"build.gradle.kts", "java", "kotlin"},
	{"build.gradle", "java", "java"},
	{"Gemfile", "ruby", "ruby"},
	{"composer.json", "php", "php"},
}

var nodeLockFiles = []struct{ file, manager string }{
	{"pnpm-lock.yaml", "pnpm"}, {"pnpm-workspace.yaml", "pnpm"}, {"yarn.lock", "yarn"},
	{"bun.lockb", "bun"}, {"bun.lock", "bun"}, {"package-lock.json", "npm"},
}

// DetectProject inspects marker files in dir.
func DetectProject(dir string) ProjectInfo {
	for _, m := range projectMarkers {
		p := filepath.Join(dir, m.file)
		if !isRegular(p) {
			continue
		}
		info := ProjectInfo{Type: m.typ, Language: m.lang}
		switch m.file {
		case "go.mod":
			info.Name = goModule(p)
		case "package.json":
			info.Name = packageName(p)
			if isRegular(filepath.Join(dir, "tsconfig.json")) {
				info.Language = "typescript"
			}
			for _, l := range nodeLockFiles {
				if isRegular(filepath.Join(dir, l.file)) {
					info.PackageManager = l.manager
					break
				}
			}
		}
		return info
	}
	return ProjectInfo{}
}

func goModule(p string) string {
	data, err := readSmall(p)
	if err != nil {
		return ""
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) >= 2 && f[0] == "module" {
			return strings.Trim(f[1], `"`)
		}
	}
	return ""
}

func packageName(p string) string {
	data, err := readSmall(p)
	if err != nil {
		return ""
	}
	var pkg struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(data, &pkg) != nil {
		return ""
	}
	return pkg.Name
}

func readSmall(p string) ([]byte, error) {
	st, err := os.Stat(p)
	if err != nil || st.Size() > MaxFileBytes {
		return nil, os.ErrInvalid
	}
	return os.ReadFile(p)
}

// GitInfo is the repository state of the working directory.
type GitInfo struct {
	// IsRepo is set when cwd or an ancestor has a .git directory or file.
	IsRepo bool
	// Root is the work tree root.
	Root string
	// Branch is the checked-out branch; empty for a detached HEAD.
	Branch string
}

// detectGit finds the enclosing repository (looking no higher than stop, when stop is
// an ancestor) and reads its HEAD without running git.
func detectGit(cwd, stop string) GitInfo {
	for dir := cwd; ; {
		dotgit := filepath.Join(dir, ".git")
		if st, err := os.Stat(dotgit); err == nil {
			info := GitInfo{IsRepo: true, Root: dir}
			gitDir := dotgit
			if !st.IsDir() { // a worktree or submodule: "gitdir: <path>"
				if data, err := readSmall(dotgit); err == nil {
					gd := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(string(data)), "gitdir:"))
					if !filepath.IsAbs(gd) {
						gd = filepath.Join(dir, gd)
					}
					gitDir = gd
				}
			}
			if head, err := readSmall(filepath.Join(gitDir, "HEAD")); err == nil {
				if ref, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: refs/heads/"); ok {
					info.Branch = ref
				}
			}
			return info
		}
		parent := filepath.Dir(dir)
		if parent == dir || dir == stop {
			return GitInfo{}
		}
		dir = parent
	}
}

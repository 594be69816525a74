package assemble

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// runtimeGitignore keeps what robota writes into a project (session records, logs,
// saved tool output and edit checkpoints) out of `git status`, and, because Grep and Glob honour nested
// .gitignore files, out of the model's own searches. Settings files beside them
// stay visible.
const runtimeGitignore = `# Written by robota: session records, logs, tool output, edit checkpoints and memory awaiting review of this machine.
sessions/
logs/
tool-output/
checkpoints/
memory/pending/
`

// checkpointsRuntimeGitignore is what the version before the project memory wrote
// (memory/MEMORY.md and topics/ are the project's to commit; candidates under review may
// hold personal data and stay local).
const checkpointsRuntimeGitignore = `# Written by robota: session records, logs, tool output and edit checkpoints of this machine.
sessions/
logs/
tool-output/
checkpoints/
`

// toolOutputRuntimeGitignore is what the version before edit checkpoints wrote.
const toolOutputRuntimeGitignore = `# Written by robota: session records, logs and tool output of this machine.
sessions/
logs/
tool-output/
`

// previousRuntimeGitignore (and toolOutputRuntimeGitignore, checkpointsRuntimeGitignore) are what earlier versions wrote; such a file is brought up to
// date, since nobody edited it.
const previousRuntimeGitignore = `# Written by robota: session records and logs of this machine.
sessions/
logs/
`

// ensureRuntimeGitignore writes .robota/.gitignore once; an existing file is the
// user's and is left alone, unless it is exactly what an earlier version wrote.
func ensureRuntimeGitignore(cwd string) error {
	dir := filepath.Join(cwd, ".robota")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	path := filepath.Join(dir, ".gitignore")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		if old, rerr := os.ReadFile(path); rerr == nil && (string(old) == previousRuntimeGitignore || string(old) == toolOutputRuntimeGitignore ||
			string(old) == checkpointsRuntimeGitignore) {
			if werr := os.WriteFile(path, []byte(runtimeGitignore), 0o644); werr != nil {
				return fmt.Errorf("update .robota/.gitignore: %w", werr)
			}
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("write .robota/.gitignore: %w", err)
	}
	if _, err := f.WriteString(runtimeGitignore); err != nil {
		f.Close()
		return fmt.Errorf("write .robota/.gitignore: %w", err)
	}
	return f.Close()
}

package tui

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
)

// historyKeep is how many prompts of a project the history keeps in memory.
const historyKeep = 500

// history is the prompts typed in a project, across sessions: one JSON line per prompt
// ({"project": cwd, "prompt": text}) in a user file, appended as they are entered.
type history struct {
	mu      sync.Mutex
	path    string
	project string
	list    []string
}

// loadHistory reads the prompts of project from path; a missing or unreadable file
// gives an empty history (it is a convenience, never a reason to fail).
func loadHistory(path, project string) *history {
	h := &history{path: path, project: project}
	if path == "" {
		return h
	}
	f, err := os.Open(path)
	if err != nil {
		return h
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for sc.Scan() {
		var e struct{ Project, Prompt string }
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.Project == project && e.Prompt != "" {
			h.list = append(h.list, e.Prompt)
		}
	}
	if len(h.list) > historyKeep {
		h.list = h.list[len(h.list)-historyKeep:]
	}
	return h
}

func (h *history) entries() []string {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.list
}

func (h *history) add(prompt string) {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if n := len(h.list); n > 0 && h.list[n-1] == prompt {
		return
	}
	h.list = append(h.list, prompt)
	if h.path == "" {
		return
	}
	line, err := json.Marshal(struct {
		Project string `json:"project"`
		Prompt  string `json:"prompt"`
	}{h.project, prompt})
	if err != nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(h.path), 0o700); err != nil {
		return
	}
	f, err := os.OpenFile(h.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	f.Write(append(line, '\n')) //nolint:errcheck // history is best effort
}

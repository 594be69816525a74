package manager

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// projects remembers the project directories the engine made sessions in, so that a
// restarted engine can list their stored sessions. Kept in {StateDir}/projects.json,
// replaced atomically.
type projects struct {
	path string // empty: not persisted

	mu   sync.Mutex
	dirs []string
}

func loadProjects(stateDir string) (*projects, error) {
	p := &projects{}
	if stateDir == "" {
		return p, nil
	}
	p.path = filepath.Join(stateDir, "projects.json")
	b, err := os.ReadFile(p.path)
	if errors.Is(err, os.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return nil, fmt.Errorf("engine state: %w", err)
	}
	if err := json.Unmarshal(b, &p.dirs); err != nil {
		return nil, fmt.Errorf("engine state %s: %w", p.path, err)
	}
	return p, nil
}

func (p *projects) list() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.dirs)
}

// add remembers dir and writes the list when it is new.
func (p *projects) add(dir string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if slices.Contains(p.dirs, dir) {
		return nil
	}
	p.dirs = append(p.dirs, dir)
	if p.path == "" {
		return nil
	}
	b, _ := json.Marshal(p.dirs)
	if err := os.MkdirAll(filepath.Dir(p.path), 0o700); err != nil {
		return err
	}
	tmp := p.path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, p.path)
}

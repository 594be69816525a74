package session

import (
	"context"
	"strings"
)

// Name is the session's user-assigned name ("" when none).
func (s *Session) Name() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg.Name
}

// SetName names the session (/rename) and saves the record's header when a store is
// configured, so listings and --resume NAME see it.
func (s *Session) SetName(ctx context.Context, name string) error {
	s.mu.Lock()
	s.cfg.Name = strings.TrimSpace(name)
	s.mu.Unlock()
	return s.save(ctx, true)
}

// SaveHeader saves the record's header (DecorateRecord's fields included) when a store is
// configured, for a front end that changed what DecorateRecord adds (the memory audit
// trail). While a prompt runs it saves nothing: a save then could cut a round in half,
// and the save at the end of the run carries the header.
func (s *Session) SaveHeader(ctx context.Context) error {
	if s.IsRunning() {
		return nil
	}
	return s.save(ctx, true)
}

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

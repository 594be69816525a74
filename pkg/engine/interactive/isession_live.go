package interactive

import (
	"strings"
	"sync"
)

// liveState is what a client joining mid-prompt asks for without replaying events: the
// text streamed so far and the tool calls running (the spec's getStreamingText and
// getActiveTools). It is reset when a prompt starts.
type liveState struct {
	mu     sync.Mutex
	text   strings.Builder
	active []ToolState // started, not ended, in start order
}

func (l *liveState) reset() {
	l.mu.Lock()
	l.text.Reset()
	l.active = nil
	l.mu.Unlock()
}

func (l *liveState) addText(d string) {
	l.mu.Lock()
	l.text.WriteString(d)
	l.mu.Unlock()
}

func (l *liveState) toolStarted(st ToolState) {
	l.mu.Lock()
	l.active = append(l.active, st)
	l.mu.Unlock()
}

func (l *liveState) toolEnded(id string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, t := range l.active {
		if t.ToolUseID == id {
			l.active = append(l.active[:i:i], l.active[i+1:]...)
			return
		}
	}
}

// StreamingText returns the text the running prompt has streamed so far (the last
// prompt's, once it ended, until the next one starts).
func (s *InteractiveSession) StreamingText() string {
	s.live.mu.Lock()
	defer s.live.mu.Unlock()
	return s.live.text.String()
}

// ActiveTools returns the tool calls that started and have not ended, in start order.
func (s *InteractiveSession) ActiveTools() []ToolState {
	s.live.mu.Lock()
	defer s.live.mu.Unlock()
	out := make([]ToolState, len(s.live.active))
	copy(out, s.live.active)
	return out
}

// PendingPrompt returns the queued prompt's text, and whether one is queued.
func (s *InteractiveSession) PendingPrompt() (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.queued == nil {
		return "", false
	}
	return s.queued.text, true
}

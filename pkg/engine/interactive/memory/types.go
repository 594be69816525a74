package memory

import (
	"fmt"
	"strings"
	"time"

	"github.com/robota-sdk/robota-go/internal/lazy"
)

// Type is what kind of fact a memory is (Claude Code's memory types).
type Type string

// The memory types.
const (
	TypeUser      Type = "user"
	TypeFeedback  Type = "feedback"
	TypeProject   Type = "project"
	TypeReference Type = "reference"
)

// Types lists the memory types in the order usage messages show them.
var Types = []Type{TypeUser, TypeFeedback, TypeProject, TypeReference}

// ParseType reads a memory type (case-insensitive).
func ParseType(s string) (Type, error) {
	t := Type(strings.ToLower(strings.TrimSpace(s)))
	for _, k := range Types {
		if t == k {
			return t, nil
		}
	}
	return "", fmt.Errorf("%w %q: one of user, feedback, project, reference", ErrInvalidType, s)
}

// MaxTopicLen bounds a topic name.
const MaxTopicLen = 64

var topicPattern = lazy.NewRegexp(`^[a-z0-9][a-z0-9._-]*$`)

// NormalizeTopic lower-cases a topic name and drops a ".md" suffix; ValidTopic then
// decides whether it may name a file.
func NormalizeTopic(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.TrimSuffix(s, ".md")
}

// ValidTopic checks a normalised topic name: 1-64 characters of a-z, 0-9, '.', '_' and
// '-', starting with a letter or digit, without "..". Such a name is one path element
// that cannot be hidden, a parent reference or a separator on any platform.
func ValidTopic(topic string) error {
	switch {
	case topic == "":
		return fmt.Errorf("%w: empty name", ErrInvalidTopic)
	case len(topic) > MaxTopicLen:
		return fmt.Errorf("%w: longer than %d characters", ErrInvalidTopic, MaxTopicLen)
	case !topicPattern.MatchString(topic) || strings.Contains(topic, ".."):
		return fmt.Errorf("%w %q: use letters, digits, '.', '_' and '-' (no path)", ErrInvalidTopic, topic)
	}
	return nil
}

// Entry is one stored memory: a bullet line of a topic file.
type Entry struct {
	Type Type   `json:"type,omitempty"`
	Text string `json:"text"`
	// Date is the day it was added (YYYY-MM-DD), empty for a hand-written line.
	Date string `json:"date,omitempty"`
}

// entryLine is the bullet line of e in a topic file.
func (e Entry) line() string {
	s := "- "
	if e.Type != "" {
		s += "[" + string(e.Type) + "] "
	}
	s += e.Text
	if e.Date != "" {
		s += " _(" + e.Date + ")_"
	}
	return s
}

var entryPattern = lazy.NewRegexp(`^\s*[-*]\s+(?:\[(user|feedback|project|reference)\]\s+)?(.*?)(?:\s+_\((\d{4}-\d{2}-\d{2})\)_)?\s*$`)

// parseEntries reads the bullet lines of a topic file; other lines are not entries.
func parseEntries(content string) []Entry {
	var out []Entry
	for _, line := range strings.Split(strings.ReplaceAll(content, "\r\n", "\n"), "\n") {
		m := entryPattern.FindStringSubmatch(line)
		if m == nil || strings.TrimSpace(m[2]) == "" {
			continue
		}
		out = append(out, Entry{Type: Type(m[1]), Text: m[2], Date: m[3]})
	}
	return out
}

// oneLine folds text into one line: an entry is a bullet line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// normalize is the text deduplication compares: case, spacing and trailing punctuation
// ignored.
func normalize(s string) string {
	return strings.TrimRight(strings.ToLower(oneLine(s)), ".;,!")
}

// Event is one entry of the session's memory audit trail (the record's memoryEvents).
// It never holds a refused text.
type Event struct {
	ID   string    `json:"id"`
	At   time.Time `json:"at"`
	Type string    `json:"type"` // saved, skipped, queued, approved, rejected, retrieved
	// Topic and MemoryType describe the memory; Path is its file, relative to the project.
	Topic      string `json:"topic,omitempty"`
	MemoryType Type   `json:"memoryType,omitempty"`
	Path       string `json:"path,omitempty"`
	// CandidateID is the pending candidate queued, approved or rejected.
	CandidateID  string `json:"candidateId,omitempty"`
	Deduplicated bool   `json:"deduplicated,omitempty"`
	// Reason is why a text was skipped or queued.
	Reason string `json:"reason,omitempty"`
}

// Event types.
const (
	EventSaved     = "saved"
	EventSkipped   = "skipped"
	EventQueued    = "queued"
	EventApproved  = "approved"
	EventRejected  = "rejected"
	EventRetrieved = "retrieved"
)

// Reference is a memory topic retrieved into the conversation (the record's
// usedMemoryReferences): its provenance.
type Reference struct {
	Topic       string    `json:"topic"`
	Path        string    `json:"path"`
	Entries     int       `json:"entries"`
	RetrievedAt time.Time `json:"retrievedAt"`
}

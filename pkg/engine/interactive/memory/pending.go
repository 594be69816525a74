package memory

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/robota-sdk/robota-go/internal/lazy"
)

// Candidate is a memory waiting for review: /memory add queued it because the policy
// said Review.
type Candidate struct {
	ID        string    `json:"id"`
	Topic     string    `json:"topic"`
	Type      Type      `json:"type"`
	Text      string    `json:"text"`
	Reason    string    `json:"reason"`
	CreatedAt time.Time `json:"createdAt"`
	SessionID string    `json:"sessionId,omitempty"`
	Kind      string    `json:"kind,omitempty"`
}

var candidateIDPattern = lazy.NewRegexp(`^[A-Za-z0-9_-]{1,64}$`)

// candidatePath is the file of a candidate id, relative to the project root; ids are
// checked first, so it is one path element under PendingDir.
func candidatePath(id string) (string, error) {
	if !candidateIDPattern.MatchString(id) {
		return "", fmt.Errorf("%w %q", ErrUnknownCandidate, id)
	}
	return PendingDir + "/" + id + ".json", nil
}

// Queue stores c as a pending candidate; its ID must be new. Text is the candidate's
// text as given (the caller checked it is not refused).
func (s *Store) Queue(c Candidate) error {
	p, err := candidatePath(c.ID)
	if err != nil {
		return err
	}
	c.Topic = NormalizeTopic(c.Topic)
	if err := ValidTopic(c.Topic); err != nil {
		return err
	}
	c.Text = oneLine(c.Text)
	if c.CreatedAt.IsZero() {
		c.CreatedAt = s.now()
	}
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	r, err := s.open()
	if err != nil {
		return err
	}
	defer r.Close()
	if err := r.MkdirAll(PendingDir, 0o755); err != nil {
		return fmt.Errorf("memory pending: %w", err)
	}
	f, err := r.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("memory pending: %w", err)
	}
	if _, err := f.Write(append(data, '\n')); err != nil {
		f.Close()
		_ = r.Remove(p)
		return fmt.Errorf("memory pending: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("memory pending: %w", err)
	}
	return f.Close()
}

// Pending lists the candidates, oldest first. An unreadable candidate file is skipped.
func (s *Store) Pending() ([]Candidate, error) {
	r, err := s.open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	d, err := r.Open(PendingDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("memory pending: %w", err)
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return nil, fmt.Errorf("memory pending: %w", err)
	}
	var out []Candidate
	for _, n := range names {
		id, ok := strings.CutSuffix(n, ".json")
		if !ok {
			continue
		}
		if c, err := readCandidate(r, id); err == nil {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b Candidate) int {
		if c := a.CreatedAt.Compare(b.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

func readCandidate(r *os.Root, id string) (Candidate, error) {
	p, err := candidatePath(id)
	if err != nil {
		return Candidate{}, err
	}
	text, err := readRooted(r, p)
	if errors.Is(err, fs.ErrNotExist) {
		return Candidate{}, fmt.Errorf("%w %q", ErrUnknownCandidate, id)
	}
	if err != nil {
		return Candidate{}, err
	}
	var c Candidate
	if err := json.Unmarshal([]byte(text), &c); err != nil {
		return Candidate{}, fmt.Errorf("%s: %w", p, err)
	}
	c.ID = id
	return c, nil
}

// Approve stores candidate id (Append) and removes it from the queue. The text is checked
// against the policy again: a candidate file edited into a secret is refused.
func (s *Store) Approve(id string) (Candidate, AppendResult, error) {
	c, err := s.candidate(id)
	if err != nil {
		return c, AppendResult{}, err
	}
	if v := Evaluate(c.Text); v.Action == Refuse {
		return c, AppendResult{}, fmt.Errorf("%w: %s", ErrRefused, v.Reason)
	}
	res, err := s.Append(c.Topic, c.Type, c.Text)
	if err != nil {
		return c, res, err
	}
	return c, res, s.remove(id)
}

// Reject drops candidate id.
func (s *Store) Reject(id string) (Candidate, error) {
	c, err := s.candidate(id)
	if err != nil {
		return c, err
	}
	return c, s.remove(id)
}

func (s *Store) candidate(id string) (Candidate, error) {
	r, err := s.open()
	if err != nil {
		return Candidate{}, err
	}
	defer r.Close()
	return readCandidate(r, id)
}

func (s *Store) remove(id string) error {
	p, err := candidatePath(id)
	if err != nil {
		return err
	}
	r, err := s.open()
	if err != nil {
		return err
	}
	defer r.Close()
	if err := r.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("memory pending: %w", err)
	}
	return nil
}

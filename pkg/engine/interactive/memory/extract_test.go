package memory

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// ExtractCandidates keeps the durable-fact sentences, runs each through the policy:
// secrets, passwords, payment cards and national ids are skipped (only the verdict is
// kept), personal data becomes a candidate with the policy's reason; questions, small
// talk and repeats are not candidates.
func TestExtractCandidates(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		want    []string // text [kind]
		skipped []string // kinds
	}{
		{"a rule and a preference", "We always run go vet before a commit. The user prefers short answers.",
			[]string{"We always run go vet before a commit []", "The user prefers short answers []"}, nil},
		{"small talk and questions are not facts", "Thanks, that worked! Should we use make? Done", nil, nil},
		{"short sentences are not facts", "Never mind.", nil, nil},
		{"bullets and lines", "- tests must pass in CI\n* the service runs on port 8080\n",
			[]string{"tests must pass in CI []", "the service runs on port 8080 []"}, nil},
		{"a password is skipped", "Remember the staging password is hunter22. We use postgres 16.",
			[]string{"We use postgres 16 []"}, []string{"a password"}},
		{"an API key is skipped", "Always deploy with sk-ant-api03-abcdefghijklmnopqrstuvwx as the key.", nil, []string{"an Anthropic API key"}},
		{"a private key is skipped", "Remember -----BEGIN RSA PRIVATE KEY----- goes in the vault.", nil, []string{"a private key"}},
		{"a payment card is skipped", "Always test with card 4111 1111 1111 1111 in staging.", nil, []string{"a payment card number"}},
		{"a national id is skipped", "The owner's ssn is 123-45-6789 and must stay private.", nil, []string{"a national identity number"}},
		{"personal data waits for review", "Prod access requests should go to ana@example.com first.",
			[]string{"Prod access requests should go to ana@example.com first [an e-mail address]"}, nil},
		{"a repeat is one candidate", "We use make. we use make.", []string{"We use make []"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := 0
			ex, err := ExtractCandidates(tt.text, ExtractOptions{Topic: "Notes", SessionID: "s1",
				NewID: func() string { n++; return fmt.Sprintf("c%d", n) }})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range ex.Candidates {
				if c.Topic != "notes" || c.Type != TypeProject || c.SessionID != "s1" || c.ID == "" || c.Reason == "" {
					t.Errorf("candidate %+v: want topic notes, type project, session s1, an id and a reason", c)
				}
				got = append(got, c.Text+" ["+c.Kind+"]")
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("candidates %q, want %q", got, tt.want)
			}
			var kinds []string
			for _, v := range ex.Skipped {
				if v.Action != Refuse {
					t.Errorf("skipped verdict %+v is not a refusal", v)
				}
				kinds = append(kinds, v.Kind)
			}
			if !slices.Equal(kinds, tt.skipped) {
				t.Errorf("skipped %q, want %q", kinds, tt.skipped)
			}
			for _, c := range ex.Candidates {
				for _, secret := range []string{"hunter22", "sk-ant", "PRIVATE KEY", "4111", "6789"} {
					if strings.Contains(c.Text, secret) {
						t.Errorf("candidate %q holds a refused secret", c.Text)
					}
				}
			}
		})
	}
}

// The extractor stores nothing; its candidates go to the pending store, and a person's
// approval saves them.
func TestExtractedCandidatesAreQueuedForReview(t *testing.T) {
	s, _ := newStore(t)
	ex, err := ExtractCandidates("We always squash merge. Never commit the api key: abcd1234efgh5678 again.",
		ExtractOptions{Topic: "workflow", Type: TypeFeedback, NewID: func() string { return "cand1" }})
	if err != nil {
		t.Fatal(err)
	}
	if topics, _ := s.Topics(); len(topics) != 0 {
		t.Fatalf("extraction saved memory: %v", topics)
	}
	if len(ex.Candidates) != 1 || len(ex.Skipped) != 1 {
		t.Fatalf("extraction %+v, want one candidate and one skipped", ex)
	}
	if err := s.Queue(ex.Candidates[0]); err != nil {
		t.Fatal(err)
	}
	pending, err := s.Pending()
	if err != nil || len(pending) != 1 || pending[0].Text != "We always squash merge" {
		t.Fatalf("pending %+v, %v", pending, err)
	}
	if _, res, err := s.Approve("cand1"); err != nil || res.Topic != "workflow" {
		t.Fatalf("approve: %+v, %v", res, err)
	}
	got, err := s.Retrieve("squash", 0)
	if err != nil || len(got) != 1 || got[0].Entry.Type != TypeFeedback {
		t.Fatalf("the approved candidate is not retrieved: %+v, %v", got, err)
	}
}

// Bad options are errors, not empty extractions.
func TestExtractCandidatesOptions(t *testing.T) {
	id := func() string { return "x" }
	for name, tt := range map[string]struct {
		o    ExtractOptions
		want error
	}{
		"no id source": {ExtractOptions{Topic: "t"}, nil},
		"bad topic":    {ExtractOptions{Topic: "../etc", NewID: id}, ErrInvalidTopic},
		"bad type":     {ExtractOptions{Topic: "t", Type: "secret", NewID: id}, ErrInvalidType},
	} {
		_, err := ExtractCandidates("We always use make.", tt.o)
		if err == nil || (tt.want != nil && !errors.Is(err, tt.want)) {
			t.Errorf("%s: err %v, want %v", name, err, tt.want)
		}
	}
}

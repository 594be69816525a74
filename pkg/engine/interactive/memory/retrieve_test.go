package memory

import (
	"fmt"
	"slices"
	"testing"
)

// Retrieve ranks entries of every topic by the query terms they share, the topic's name
// counting as a term of each entry; entries sharing none, and an empty query, retrieve
// nothing.
func TestRetrieve(t *testing.T) {
	s, _ := newStore(t)
	for _, a := range []struct {
		topic string
		typ   Type
		text  string
	}{
		{"build", TypeProject, "run make before every commit"},
		{"build", TypeProject, "release builds use go 1.26"},
		{"testing", TypeFeedback, "integration tests need make build first"},
		{"style", TypeFeedback, "prefer table-driven tests"},
		{"deploy-prod", TypeProject, "ask the on-call first"},
	} {
		if _, err := s.Append(a.topic, a.typ, a.text); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name  string
		query string
		limit int
		want  []string // topic: text (score)
	}{
		{"one term", "make", 0, []string{"build: run make before every commit (1)", "testing: integration tests need make build first (1)"}},
		{"more terms rank higher", "make build tests", 0, []string{
			"testing: integration tests need make build first (3)",
			"build: run make before every commit (2)", "build: release builds use go 1.26 (1)", "style: prefer table-driven tests (1)"}},
		{"limit", "make build tests", 2, []string{"testing: integration tests need make build first (3)", "build: run make before every commit (2)"}},
		{"case and punctuation ignored", "MAKE!", 1, []string{"build: run make before every commit (1)"}},
		{"topic name words", "prod deploy", 0, []string{"deploy-prod: ask the on-call first (2)"}},
		{"nothing shared", "kubernetes", 0, nil},
		{"empty query", "  ", 0, nil},
		{"one-letter words are not terms", "a", 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := s.Retrieve(tt.query, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			var lines []string
			for _, m := range got {
				if m.Path != TopicPath(m.Topic) {
					t.Errorf("match %+v: path is not its topic's", m)
				}
				lines = append(lines, fmt.Sprintf("%s: %s (%d)", m.Topic, m.Entry.Text, m.Score))
			}
			if !slices.Equal(lines, tt.want) {
				t.Fatalf("Retrieve(%q, %d) =\n%q\nwant\n%q", tt.query, tt.limit, lines, tt.want)
			}
		})
	}
}

// A store without memory retrieves nothing, without an error.
func TestRetrieveEmptyStore(t *testing.T) {
	s, _ := newStore(t)
	got, err := s.Retrieve("anything at all", 5)
	if err != nil || len(got) != 0 {
		t.Fatalf("Retrieve on an empty store: %v, %v", got, err)
	}
}

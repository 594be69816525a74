package memory

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// The spec's reusable retrieval and capture internals (MemoryRetrievalService,
// MemoryCandidateExtractor). The spec keeps them as building blocks for explicit
// commands: no turn retrieves topic memory or extracts candidates by itself, and /memory
// (list | show | add | pending | approve | reject | used) does not call them yet.

// Match is a retrieved memory entry and where it is stored.
type Match struct {
	Topic string `json:"topic"`
	Path  string `json:"path"`
	Entry Entry  `json:"entry"`
	// Score is how many distinct query terms the entry (or its topic name) holds.
	Score int `json:"score"`
}

// Retrieve ranks the entries of every topic by the distinct query terms they share
// (words of two or more letters or digits, case-insensitive; a term in the topic name
// counts for each of its entries) and returns the best limit of them (all when limit <=
// 0): higher score first, then topic name, then the order in the file. Entries sharing
// no term are left out; an empty query retrieves nothing.
func (s *Store) Retrieve(query string, limit int) ([]Match, error) {
	terms := queryTerms(query)
	if len(terms) == 0 {
		return nil, nil
	}
	topics, err := s.Topics()
	if err != nil {
		return nil, err
	}
	type ranked struct {
		m     Match
		order int
	}
	var found []ranked
	for _, info := range topics {
		t, err := s.Show(info.Name)
		if err != nil {
			return nil, fmt.Errorf("memory retrieval: %w", err)
		}
		topicWords := wordSet(strings.NewReplacer("-", " ", "_", " ", ".", " ").Replace(info.Name))
		for i, e := range t.List {
			words := wordSet(e.Text)
			score := 0
			for _, term := range terms {
				if words[term] || topicWords[term] {
					score++
				}
			}
			if score > 0 {
				found = append(found, ranked{Match{Topic: info.Name, Path: info.Path, Entry: e, Score: score}, i})
			}
		}
	}
	slices.SortStableFunc(found, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(b.m.Score, a.m.Score), cmp.Compare(a.m.Topic, b.m.Topic), cmp.Compare(a.order, b.order))
	})
	if limit > 0 && len(found) > limit {
		found = found[:limit]
	}
	out := make([]Match, len(found))
	for i, r := range found {
		out[i] = r.m
	}
	return out, nil
}

// queryTerms are the distinct words of a query, in order.
func queryTerms(q string) []string {
	var out []string
	for _, w := range words(q) {
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range words(s) {
		m[w] = true
	}
	return m
}

// words lower-cases s and splits it on everything but letters and digits, keeping
// words of two or more characters.
func words(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len([]rune(w)) >= 2 {
			out = append(out, w)
		}
	}
	return out
}

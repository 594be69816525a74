package memory

import (
	"fmt"
	"strings"

	"github.com/robota-sdk/robota-go/internal/lazy"
)

// ExtractOptions say where the extractor's candidates would be stored.
type ExtractOptions struct {
	// Topic and Type of every candidate (Type empty: project).
	Topic string
	Type  Type
	// SessionID is the session the text came from, kept with each candidate.
	SessionID string
	// NewID names a candidate (an id Store.Queue accepts); required.
	NewID func() string
}

// Extraction is what the candidate extractor found in a text.
type Extraction struct {
	// Candidates are the durable-fact sentences the policy does not refuse, for
	// Store.Queue: a person approves or rejects each (/memory approve|reject). Reason
	// and Kind are the policy's when it said Review.
	Candidates []Candidate
	// Skipped are the policy's verdicts on the sentences it refused (a secret, a
	// password …); the sentences themselves are dropped, never kept.
	Skipped []Verdict
}

// durableCue matches the wording of a fact worth keeping beyond the session: a rule or
// convention ("always", "never", "must"), a preference, how the project is set up
// ("we use", "is configured", "lives in").
var durableCue = lazy.NewRegexp(`(?i)\b(?:always|never|must|must not|should|should not|prefers?|preferred|convention|remember|` +
	`don't|do not|we use|uses|is configured|are configured|is located|lives in|runs on|by default|defaults to)\b`)

// sentenceEnd splits text into sentences: at . ! ? followed by a space, and at line ends.
var sentenceEnd = lazy.NewRegexp(`[.!?]\s+|\n+`)

// ExtractCandidates is the spec's MemoryCandidateExtractor: it finds the sentences of
// text that state a durable fact (durableCue; questions and sentences under three
// words are not facts), runs each through Evaluate (the same policy /memory add uses)
// and returns the ones it does not refuse as pending candidates, each sentence once.
// It stores nothing: the caller queues the candidates (Store.Queue), so every extracted
// memory is reviewed by a person before it is saved.
func ExtractCandidates(text string, o ExtractOptions) (Extraction, error) {
	if o.NewID == nil {
		return Extraction{}, fmt.Errorf("memory: ExtractCandidates needs ExtractOptions.NewID")
	}
	topic := NormalizeTopic(o.Topic)
	if err := ValidTopic(topic); err != nil {
		return Extraction{}, err
	}
	typ := o.Type
	if typ == "" {
		typ = TypeProject
	}
	if _, err := ParseType(string(typ)); err != nil {
		return Extraction{}, err
	}
	var out Extraction
	seen := map[string]bool{}
	for _, raw := range splitSentences(text) {
		s := strings.TrimRight(oneLine(strings.TrimLeft(raw, "-*• \t")), ".!;")
		if len(strings.Fields(s)) < 3 || strings.HasSuffix(s, "?") || len(s) > MaxTextBytes || !durableCue.MatchString(s) {
			continue
		}
		v := Evaluate(s)
		if v.Action == Refuse {
			out.Skipped = append(out.Skipped, v)
			continue
		}
		if seen[normalize(s)] {
			continue
		}
		seen[normalize(s)] = true
		c := Candidate{ID: o.NewID(), Topic: topic, Type: typ, Text: s, SessionID: o.SessionID}
		if v.Action == Review {
			c.Reason, c.Kind = v.Reason, v.Kind
		} else {
			c.Reason = "extracted as a durable fact"
		}
		out.Candidates = append(out.Candidates, c)
	}
	return out, nil
}

// splitSentences cuts text at sentence ends, keeping each sentence's final "?" (a
// question is not a fact); the caller trims the other end punctuation.
func splitSentences(text string) []string {
	var out []string
	last := 0
	for _, m := range sentenceEnd.FindAllStringIndex(text, -1) {
		end := m[0]
		if text[m[0]] == '?' {
			end++
		}
		out = append(out, text[last:end])
		last = m[1]
	}
	return append(out, text[last:])
}

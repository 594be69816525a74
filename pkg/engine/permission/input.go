package permission

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// toolInput is a tool call's arguments as the evaluator sees them.
type toolInput struct {
	fields map[string]json.RawMessage
	err    error // set when the input is not an unambiguous JSON object
}

// decodeInput reads the top-level object of a tool input. Keys that repeat, or that are
// equal ignoring case, make the input ambiguous: Go's encoding/json keeps the last
// duplicate and matches struct fields case-insensitively, so the tool could read a
// different value from the one a rule was checked against.
func decodeInput(raw json.RawMessage) toolInput {
	if len(bytes.TrimSpace(raw)) == 0 {
		return toolInput{fields: map[string]json.RawMessage{}}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return toolInput{err: fmt.Errorf("tool input: %w", err)}
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return toolInput{err: errors.New("tool input is not a JSON object")}
	}
	fields := map[string]json.RawMessage{}
	folded := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return toolInput{err: fmt.Errorf("tool input: %w", err)}
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return toolInput{err: fmt.Errorf("tool input: %w", err)}
		}
		if f := strings.ToLower(key); folded[f] {
			return toolInput{err: fmt.Errorf("tool input repeats key %q (ignoring case)", key)}
		} else {
			folded[f] = true
		}
		fields[key] = v
	}
	if _, err := dec.Token(); err != nil {
		return toolInput{err: fmt.Errorf("tool input: %w", err)}
	}
	if _, err := dec.Token(); err != io.EOF {
		return toolInput{err: errors.New("tool input has trailing data")}
	}
	return toolInput{fields: fields}
}

// InputFromMap encodes a map-shaped tool input for Request.Input.
func InputFromMap(m map[string]any) (json.RawMessage, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encode tool input: %w", err)
	}
	return b, nil
}

// str returns a string field. ok=false when the input is unusable, the field is
// missing, is not a string, or exists only under another capitalisation.
func (in toolInput) str(name string) (string, bool) {
	if in.err != nil {
		return "", false
	}
	raw, ok := in.fields[name]
	if !ok {
		return "", false
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

// has reports whether the field is present (in any capitalisation) or the input unusable.
func (in toolInput) maybeHas(name string) bool {
	if in.err != nil {
		return true
	}
	for k := range in.fields {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

// agentTypes returns the subagent types an Agent (Task) call starts: its subagent_type
// (general-purpose when omitted) and that of every entry of its batch jobs. ok=false when
// one cannot be read for certain (a field in another capitalisation, which Go's decoder
// would still use; jobs that are not a list of objects).
func agentTypes(in toolInput) (names []string, ok bool) {
	one := func(in toolInput) (string, bool) {
		name, ok := in.str("subagent_type")
		if !ok {
			if in.maybeHas("subagent_type") {
				return "", false
			}
			name = "general-purpose"
		}
		return name, true
	}
	if in.err != nil {
		return nil, false
	}
	raw, hasJobs := in.fields["jobs"]
	if !hasJobs && in.maybeHas("jobs") {
		return nil, false
	}
	var jobs []json.RawMessage
	if hasJobs && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		if err := json.Unmarshal(raw, &jobs); err != nil {
			return nil, false
		}
	}
	// With jobs, the top-level type counts only when given (the tool starts the jobs).
	if len(jobs) == 0 || in.maybeHas("subagent_type") {
		name, ok := one(in)
		if !ok {
			return nil, false
		}
		names = append(names, name)
	}
	for _, j := range jobs {
		name, ok := one(decodeInput(j))
		if !ok {
			return nil, false
		}
		names = append(names, name)
	}
	return names, true
}

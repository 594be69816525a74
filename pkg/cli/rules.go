package cli

import (
	"fmt"
	"strings"
)

// ruleList collects permission rules from a repeatable flag. One argument may
// hold several rules separated by commas or spaces outside parentheses:
// "Read,Bash(git log *)" is two rules.
type ruleList []string

func (r *ruleList) String() string { return strings.Join(*r, ",") }

func (r *ruleList) Set(v string) error {
	rules, err := SplitRules(v)
	if err != nil {
		return err
	}
	*r = append(*r, rules...)
	return nil
}

// SplitRules splits a flag value into permission rules.
func SplitRules(v string) ([]string, error) {
	var out []string
	var cur strings.Builder
	depth := 0
	flush := func() {
		if s := strings.TrimSpace(cur.String()); s != "" {
			out = append(out, s)
		}
		cur.Reset()
	}
	for _, r := range v {
		switch {
		case r == '(':
			depth++
		case r == ')':
			if depth == 0 {
				return nil, fmt.Errorf("permission rules %q: unbalanced ')'", v)
			}
			depth--
		case depth == 0 && (r == ',' || r == ' ' || r == '\t'):
			flush()
			continue
		}
		cur.WriteRune(r)
	}
	if depth != 0 {
		return nil, fmt.Errorf("permission rules %q: unclosed '('", v)
	}
	flush()
	return out, nil
}

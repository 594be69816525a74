package hook

import (
	"regexp"
	"strings"

	"github.com/robota-sdk/robota-go/internal/lazy"
)

// matcher selects the hooks of a group. "", "*" (and an omitted matcher) select
// everything; a matcher made only of letters, digits, `_`, space, `,`, `|` and `-` is
// a list of exact names; anything else is an unanchored regular expression.
type matcher struct {
	all   bool
	names map[string]bool
	re    *regexp.Regexp
	err   error // an invalid regular expression: matches nothing
}

// Compiled on first use, not at start-up: every robota run, --version included, pays for
// package initialisation (PERF-NOTES.md).
var namesOnly = lazy.NewRegexp(`^[A-Za-z0-9_ ,|-]+$`)

func compileMatcher(s string) matcher {
	if s == "" || s == "*" {
		return matcher{all: true}
	}
	if namesOnly.MatchString(s) {
		names := map[string]bool{}
		for _, n := range strings.FieldsFunc(s, func(r rune) bool { return r == '|' || r == ',' }) {
			if n = strings.TrimSpace(n); n != "" {
				names[n] = true
			}
		}
		return matcher{names: names}
	}
	re, err := regexp.Compile(s)
	if err != nil {
		return matcher{err: err}
	}
	return matcher{re: re}
}

func (m matcher) match(v string) bool {
	switch {
	case m.all:
		return true
	case m.names != nil:
		return m.names[v]
	case m.re != nil:
		return m.re.MatchString(v)
	}
	return false
}

// toolNameAlias is the other name of a tool that was renamed, for tool events: Claude
// Code's subagent tool was called Task before it became Agent, and settings written for
// either name keep selecting its calls (DESIGN.md decision 9). Other events and tools
// have no alias ("").
func toolNameAlias(ev Event, toolName string) string {
	switch ev {
	case PreToolUse, PostToolUse, PostToolUseFailure:
	default:
		return ""
	}
	switch toolName {
	case "Agent":
		return "Task"
	case "Task":
		return "Agent"
	}
	return ""
}

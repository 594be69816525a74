package skills

import (
	"strconv"
	"strings"

	"github.com/robota-sdk/robota-go/internal/lazy"
)

// ExpandOptions carries what a skill body may refer to besides its arguments.
type ExpandOptions struct {
	// SessionID replaces ${CLAUDE_SESSION_ID}.
	SessionID string
}

var placeholder = lazy.NewRegexp(`\$ARGUMENTS\[(\d+)\]|\$ARGUMENTS\b|\$(\d+)\b|\$\{CLAUDE_SKILL_DIR\}|\$\{CLAUDE_SESSION_ID\}|\$\{CLAUDE_PLUGIN_ROOT\}`)

// Expand renders a skill for one invocation, as Claude Code does: $ARGUMENTS is the
// whole argument string, $ARGUMENTS[N] and its shorthand $N the N-th argument counted
// from 0 ($0 is the first, $1 the second; missing ones are empty), ${CLAUDE_SKILL_DIR}
// the skill's directory, ${CLAUDE_PLUGIN_ROOT} a plugin's directory (left as written in
// a skill of no plugin) and ${CLAUDE_SESSION_ID} the session. Arguments are split like a
// shell's words (quotes group). When the body has no argument placeholder and args is
// not empty, "ARGUMENTS: <args>" is appended so they are not lost. A skill (not a
// command) starts with "Base directory for this skill: <Dir>" so the model can Read the
// supporting files beside SKILL.md. Substituted text is never expanded again.
func Expand(s Skill, args string, opts ExpandOptions) string {
	args = strings.TrimSpace(args)
	words := SplitArgs(args)
	used := false
	body := placeholder.ReplaceAllStringFunc(s.Body, func(m string) string {
		sub := placeholder.FindStringSubmatch(m)
		switch {
		case m == "${CLAUDE_SKILL_DIR}":
			return s.Dir
		case m == "${CLAUDE_SESSION_ID}":
			return opts.SessionID
		case m == "${CLAUDE_PLUGIN_ROOT}":
			if s.PluginRoot == "" {
				return m
			}
			return s.PluginRoot
		case m == "$ARGUMENTS":
			used = true
			return args
		}
		used = true
		idx := sub[1]
		if idx == "" {
			idx = sub[2]
		}
		if i, err := strconv.Atoi(idx); err == nil && i >= 0 && i < len(words) {
			return words[i]
		}
		return ""
	})
	if !used && args != "" {
		body += "\n\nARGUMENTS: " + args
	}
	if s.Kind == KindSkill && s.Dir != "" {
		body = "Base directory for this skill: " + s.Dir + "\n\n" + body
	}
	return body
}

// SplitArgs splits an argument string into words like a shell: blanks separate words,
// single quotes keep everything, double quotes keep all but a backslash before `"` or
// `\`, and an unquoted backslash keeps the next character. An unclosed quote runs to the end.
func SplitArgs(s string) []string {
	var (
		out     []string
		cur     strings.Builder
		inWord  bool
		quote   rune
		escaped bool
	)
	for _, r := range s {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case quote == '"':
			switch r {
			case '"':
				quote = 0
			case '\\':
				escaped = true
			default:
				cur.WriteRune(r)
			}
		case r == '\\':
			escaped, inWord = true, true
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out
}

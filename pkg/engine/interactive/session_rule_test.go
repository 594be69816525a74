package interactive

import (
	"encoding/json"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/permission"
)

func TestSuggestSessionRule(t *testing.T) {
	for _, tc := range []struct {
		tool, input, want string
	}{
		{"Bash", `{"command":"npm test"}`, "Bash(npm test:*)"},
		{"Bash", `{"command":"npm test -- --watch"}`, "Bash(npm test:*)"},
		{"Bash", `{"command":"git log --oneline -5"}`, "Bash(git log:*)"},
		{"Bash", `{"command":"timeout 5 make build"}`, "Bash(make build:*)"},
		{"Bash", `{"command":"ls -la /tmp"}`, "Bash(ls:*)"},
		{"Bash", `{"command":"./run.sh a"}`, "Bash(./run.sh a:*)"},
		{"Bash", `{"command":"make && rm -rf x"}`, ""}, // compound: no single prefix covers it
		{"Bash", `{"command":"npm test > out.txt"}`, ""},
		{"Bash", `{"command":"FOO=1 make"}`, ""},
		{"Bash", `{"command":"$CMD run"}`, ""},
		{"Bash", `{"command":"echo 'unterminated"}`, ""},
		{"Edit", `{"file_path":"/w/src/a.go","old_string":"a","new_string":"b"}`, "Edit(//w/src/**)"},
		{"Write", `{"file_path":"src/b.go","content":"x"}`, "Edit(//proj/src/**)"},
		{"Read", `{"file_path":"/etc/hosts"}`, "Read(//etc/**)"},
		{"Grep", `{"pattern":"x","path":"/w/pkg"}`, "Read(//w/pkg/**)"},
		{"Glob", `{"pattern":"*.go"}`, "Read(//proj/**)"},
		{"Edit", `{"file_path":"/w/[x]/a.go"}`, ""},
		{"WebFetch", `{"url":"https://go.dev/doc"}`, "WebFetch(domain:go.dev)"},
		{"SlashCommand", `{"command":"/memory add project build use make"}`, "SlashCommand(/memory:*)"},
		{"SlashCommand", `{"command":"memory"}`, ""},
		{"WebSearch", `{"query":"go"}`, "WebSearch"},
	} {
		if got := SuggestSessionRule(tc.tool, json.RawMessage(tc.input), "/proj"); got != tc.want {
			t.Errorf("%s %s: %q, want %q", tc.tool, tc.input, got, tc.want)
		}
		if tc.want == "" {
			continue
		}
		if _, err := permission.NewRule(permission.Allow, tc.want, permission.Source{}); err != nil {
			t.Errorf("suggested rule %q does not parse: %v", tc.want, err)
		}
	}
}

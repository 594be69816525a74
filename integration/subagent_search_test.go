package integration

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// A subagent's Grep and Glob over the project leave out what a Read deny rule covers
// (issue 31: a search is decided for its directory, so the files in it must be left out
// by the tool), with the command sandbox on and off: the denied files' names and
// contents never reach the subagent's tool results, and the rest is found.
func TestSubagentSearchLeavesOutDeniedFiles(t *testing.T) {
	for _, sandboxed := range []bool{true, false} {
		name := map[bool]string{true: "sandbox on", false: "sandbox off"}[sandboxed]
		t.Run(name, func(t *testing.T) {
			p := newProject(t)
			if !sandboxed {
				p.withoutSandbox(t)
			}
			p.writeFile(t, "notes.txt", "FINDME in the open\n")
			p.writeFile(t, "secret.txt", "FINDME MARK-secret-41\n")
			p.writeFile(t, "keys/private.txt", "FINDME MARK-key-42\n")
			p.writeFile(t, ".claude/settings.json", `{"permissions": {"deny": ["Read(./secret.txt)", "Read(./keys/**)"]}}`)
			script := p.script(t, "subagent_search", nil)
			ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
			defer cancel()
			cmd := p.command(ctx, "-p", "search", "--provider", "script", "--script", script,
				"--permission-mode", "bypassPermissions", "--output-format", "stream-json", "--verbose")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("robota: %v\n%s\nstderr:\n%s", err, out, stderr.String())
			}
			s := string(out)
			if !strings.Contains(s, "FINDME in the open") || !strings.Contains(s, "search done") {
				t.Fatalf("the subagent's search did not run or find the open file:\n%s", s)
			}
			for _, leak := range []string{"MARK-secret-41", "MARK-key-42", "secret.txt", "private.txt"} {
				if strings.Contains(s, leak) {
					t.Errorf("%q reached the subagent's tool results:\n%s", leak, s)
				}
			}
		})
	}
}

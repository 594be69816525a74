package background

import (
	"slices"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// A worktree job's sandbox hides and makes read-only, in its worktree, the copies of
// what the session's policy covers in the project (issue 31: deny rules cover both
// copies of a file); paths outside the project and inside the worktree stay as they are.
func TestJobSandboxInWorktree(t *testing.T) {
	const repo, wt = "/nonexistent-repo", "/nonexistent-repo/.robota/worktrees/agent-1"
	sb := &runnerapi.Sandbox{
		Hide:             []string{repo + "/secret.txt", "/home/u/.ssh", wt + "/already"},
		ReadOnly:         []string{repo + "/.claude", repo + "/locked.txt"},
		ExcludedCommands: []string{"docker"},
	}
	got := inWorktree(sb, wt, repo)
	wantHide := []string{repo + "/secret.txt", "/home/u/.ssh", wt + "/already", wt + "/secret.txt"}
	wantRO := []string{repo + "/.claude", repo + "/locked.txt", wt + "/.claude", wt + "/locked.txt"}
	if !slices.Equal(got.Hide, wantHide) || !slices.Equal(got.ReadOnly, wantRO) || !slices.Equal(got.ExcludedCommands, sb.ExcludedCommands) {
		t.Errorf("got hide %q read-only %q excluded %q\nwant hide %q read-only %q", got.Hide, got.ReadOnly, got.ExcludedCommands, wantHide, wantRO)
	}
	if len(sb.Hide) != 3 || len(sb.ReadOnly) != 2 {
		t.Errorf("the session's policy was changed: %+v", sb)
	}
}

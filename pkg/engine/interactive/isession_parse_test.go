package interactive

import (
	"slices"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive/commands"
)

func TestBackgroundCommandSafety(t *testing.T) {
	for args, want := range map[string]commands.Safety{
		"": commands.SafetyReadOnly, "read x": commands.SafetyReadOnly, "wait g": commands.SafetyReadOnly,
		"group g": commands.SafetyReadOnly, "group create wait_all a": commands.SafetyBackgroundAgent,
		"cancel x": commands.SafetyBackgroundAgent, "close x": commands.SafetyBackgroundAgent,
	} {
		if got := backgroundSafety(args); got != want {
			t.Errorf("/background %s: %s, want %s", args, got, want)
		}
	}
	for args, want := range map[string]commands.Safety{
		"": commands.SafetyReadOnly, "read x": commands.SafetyReadOnly, "parallel a:x": commands.SafetyBackgroundAgent,
		"do something": commands.SafetyBackgroundAgent, "stop x": commands.SafetyBackgroundAgent,
	} {
		if got := agentSafety(args); got != want {
			t.Errorf("/agent %s: %s, want %s", args, got, want)
		}
	}
}

func TestTokenize(t *testing.T) {
	for in, want := range map[string][]string{
		`a:"two words" b='x y'`:   {"a:two words", "b=x y"},
		`  run  fast `:            {"run", "fast"},
		`a:"say \"hi\""`:          {`a:say "hi"`},
		`label=explorer:"look" z`: {"label=explorer:look", "z"},
		`""`:                      {""},
	} {
		if got := tokenize(in); !slices.Equal(got, want) {
			t.Errorf("tokenize(%q) = %q, want %q", in, got, want)
		}
	}
}

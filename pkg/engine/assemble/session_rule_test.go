package assemble

import (
	"context"
	"slices"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/permission"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
)

// "Allow for the session" end to end with the real evaluator: the suggested rule is
// stored, a later call it covers is not asked, a different command or an uncovered part
// still is, and neither an ask rule nor a deny rule is lifted.
func TestSessionRulesThroughTheEnforcer(t *testing.T) {
	dir := t.TempDir()
	var asked []session.ApprovalRequest
	e := session.NewPermissionEnforcer(session.EnforcerConfig{
		Evaluator: testEvaluator(t, dir, permission.ModeDefault, permission.Layer{
			Ask: []string{"Bash(npm run deploy:*)"}, Deny: []string{"Bash(npm publish:*)"}}),
		Handler: func(_ context.Context, req session.ApprovalRequest) session.PermissionAnswer {
			asked = append(asked, req)
			return session.PermissionAnswer{Approval: session.ApprovalAllowSession}
		},
		Cwd: dir,
	})
	bash := e.Wrap([]llm.Tool{echoTool{name: "Bash"}})[0]
	for _, step := range []struct {
		command   string
		ok, asked bool
		offered   string // the rule offered when asked
	}{
		{"npm test", true, true, "Bash(npm test:*)"},
		{"npm test -- --coverage", true, false, ""},
		{"timeout 60 npm test", true, false, ""},
		{"npm install", true, true, "Bash(npm install:*)"},
		{"npm test && git push", true, true, ""}, // git push is not covered
		{"npm run deploy", true, true, ""},       // the ask rule still asks: nothing to offer
		{"npm run deploy", true, true, ""},
		{"npm publish", false, false, ""},
	} {
		before := len(asked)
		ctx := llm.WithToolCall(context.Background(), llm.ToolCallInfo{ID: "toolu_1", Name: "Bash"})
		res := bash.Execute(ctx, jsonArgs("command", step.command))
		wasAsked := len(asked) > before
		if res.Success != step.ok || wasAsked != step.asked {
			t.Fatalf("%q: success=%v asked=%v (%s); want success=%v asked=%v", step.command, res.Success, wasAsked, res.ModelContent(), step.ok, step.asked)
		}
		if wasAsked && asked[len(asked)-1].SessionRule != step.offered {
			t.Fatalf("%q: offered %q, want %q", step.command, asked[len(asked)-1].SessionRule, step.offered)
		}
	}
	if got, want := e.SessionRules(), []string{"Bash(npm test:*)", "Bash(npm install:*)"}; !slices.Equal(got, want) {
		t.Fatalf("session rules %v, want %v", got, want)
	}
}

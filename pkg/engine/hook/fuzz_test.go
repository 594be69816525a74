package hook

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"go.uber.org/zap"
)

// FuzzParseOutput feeds arbitrary hook stdout to the parser and to the folding of
// three parallel PreToolUse hooks. Properties: no panic; an allow never survives a
// deny; updatedInput, when taken, is a JSON object; context stays within the cap.
func FuzzParseOutput(f *testing.F) {
	for _, s := range []string{
		"", "plain text", "{", "{}", "null", `{"continue":false,"stopReason":"x"}`, `{"decision":"block","reason":"r"}`,
		`{"decision":"approve"}`, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"ls"}}}`,
		`{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"no"}}`, `{"hookSpecificOutput":{"updatedInput":[1]}}`,
		`{"hookSpecificOutput":{"additionalContext":"ctx"}} trailing`, `  {"systemMessage":"hi"}`, `{"continue":"no"}`,
		`{"hookSpecificOutput":null}`, `{"Decision":"block"}`, `{"decision":"block","decision":"approve"}`,
		`{"continue":"yes","hookSpecificOutput":{"permissionDecision":"deny"}}`, `{"hookSpecificOutput":{"permissionDecision":"Deny"}}`,
	} {
		f.Add(s, 0)
		f.Add(s, 2)
	}
	f.Fuzz(func(t *testing.T, stdout string, exit int) {
		out, isJSON, err := ParseOutput(stdout)
		if !isJSON && (out != nil || err != nil) {
			t.Fatalf("plain text produced output %v / error %v", out, err)
		}
		if err != nil && !errors.Is(err, ErrInvalidOutput) {
			t.Fatalf("error %v does not wrap ErrInvalidOutput", err)
		}
		if out != nil && out.Specific != nil && out.Specific.UpdatedInput != nil {
			var obj map[string]any
			if json.Unmarshal(out.Specific.UpdatedInput, &obj) != nil || obj == nil {
				t.Fatalf("updatedInput %s is not an object", out.Specific.UpdatedInput)
			}
		}
		r := &Runner{log: zap.NewNop()}
		deny := Run{Response: Response{Stdout: `{"hookSpecificOutput":{"permissionDecision":"deny"}}`}}
		fuzzed := Run{Response: Response{ExitCode: exit % 4, Stdout: stdout, Stderr: stdout}}
		allow := Run{Response: Response{Stdout: `{"hookSpecificOutput":{"permissionDecision":"allow"}}`}}
		res := r.fold(PreToolUse, []Run{allow, fuzzed, deny})
		if res.PermissionDecision != "deny" || !res.Blocked {
			t.Fatalf("deny lost to %q: %+v", stdout, res)
		}
		if n := len([]rune(res.AdditionalContext)); n > MaxContext {
			t.Fatalf("context of %d characters", n)
		}
		// Alone, an output that could not be fully understood never lets the call
		// through unasked.
		res = r.fold(PreToolUse, []Run{fuzzed})
		if fuzzed.Response.ExitCode == 0 && isJSON && err != nil && res.PermissionDecision != "ask" && res.PermissionDecision != "deny" {
			t.Fatalf("unusable output %q gave decision %q", stdout, res.PermissionDecision)
		}
		res = r.fold(UserPromptSubmit, []Run{fuzzed})
		if n := len([]rune(res.AdditionalContext)); n > MaxContext {
			t.Fatalf("context of %d characters", n)
		}
		if fuzzed.Response.ExitCode == 2 && !res.Blocked {
			t.Fatal("exit 2 did not block UserPromptSubmit")
		}
		if fuzzed.Response.ExitCode != 2 && res.Blocked && !strings.Contains(stdout, "block") {
			t.Fatalf("blocked without exit 2 or a block decision: %q", stdout)
		}
	})
}

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
		`{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow","updatedInput":{"a":1}}}}`,
		`{"hookSpecificOutput":{"decision":{"behavior":"deny","message":"m","interrupt":"yes"}}}`,
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
		// PermissionRequest: a deny from another hook always wins; an allow only from
		// a decision that parsed, with an object as its input.
		denyPR := Run{Response: Response{Stdout: `{"hookSpecificOutput":{"decision":{"behavior":"deny","message":"no"}}}`}}
		if res := r.fold(PermissionRequest, []Run{fuzzed, denyPR}); res.Permission == nil || res.Permission.Behavior != "deny" || !res.Blocked {
			t.Fatalf("PermissionRequest deny lost to %q: %+v", stdout, res.Permission)
		}
		res = r.fold(PermissionRequest, []Run{fuzzed})
		if p := res.Permission; p != nil && p.Behavior == "allow" {
			if fuzzed.Response.ExitCode != 0 || !strings.Contains(stdout, `"allow"`) {
				t.Fatalf("allowed by %q (exit %d)", stdout, fuzzed.Response.ExitCode)
			}
			var obj map[string]any
			if p.UpdatedInput != nil && (json.Unmarshal(p.UpdatedInput, &obj) != nil || obj == nil) {
				t.Fatalf("updatedInput %s is not an object", p.UpdatedInput)
			}
		}
	})
}

// FuzzParseVerdict feeds arbitrary model answers to the verdict parser and the outcome
// built from it. Properties: no panic; an error wraps ErrInvalidVerdict or
// ErrInvalidOutput; a verdict is read only from an answer with an "ok" key, ok true
// only when the answer says true; the outcome is valid hook output that never allows a
// tool call and blocks exactly when the verdict is not ok.
func FuzzParseVerdict(f *testing.F) {
	for _, s := range []string{
		"", `{"ok":true}`, `{"ok": false, "reason": "no rm"}`, "```json\n{\"ok\":false}\n```", `{"ok":"true"}`,
		`prose {"ok":true,"reason":"}"}`, `{"ok":false,"impossible":true}`, `{{{{{`, `}`, `{"ok":true}}`, `{"reason":"x"}`,
		`{"ok":false,"reason":"a"} {"ok":true}`, "```\n{\"ok\":true}```", `{"ok":true,"ok":false}`,
	} {
		f.Add(s)
	}
	r := &Runner{log: zap.NewNop()}
	f.Fuzz(func(t *testing.T, answer string) {
		v, err := ParseVerdict(answer)
		if err != nil {
			if !errors.Is(err, ErrInvalidVerdict) && !errors.Is(err, ErrInvalidOutput) {
				t.Fatalf("error %v wraps neither sentinel", err)
			}
			return
		}
		if !strings.Contains(answer, `"ok"`) || (v.OK && !strings.Contains(answer, "true")) {
			t.Fatalf("verdict %+v from %q", v, answer)
		}
		for _, ev := range []Event{PreToolUse, Stop, PermissionRequest, UserPromptSubmit} {
			resp := VerdictResponse(ev, Definition{Type: "prompt", Prompt: "p"}, v, v.Reason)
			if _, _, err := ParseOutput(resp.Stdout); err != nil {
				t.Fatalf("%s outcome %q does not parse: %v", ev, resp.Stdout, err)
			}
			res := r.fold(ev, []Run{{Response: resp}})
			if res.PermissionDecision == "allow" || (res.Permission != nil && res.Permission.Behavior == "allow") {
				t.Fatalf("%s: verdict %+v allowed", ev, v)
			}
			if wantBlock := !v.OK && !(v.Impossible && ev == Stop); res.Blocked != wantBlock {
				t.Fatalf("%s: verdict %+v blocked=%v", ev, v, res.Blocked)
			}
		}
	})
}

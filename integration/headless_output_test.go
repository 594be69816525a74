package integration

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestHeadlessStreamJSONShapes: the stream-json output of a scripted run with two tool
// calls and one denial has Claude Code's message shapes (DESIGN.md §Decisions 1): system/init
// first, assistant messages with content blocks, user messages with one tool_result per
// tool_use, a final result whose permission_denials lists exactly the denied call.
func TestHeadlessStreamJSONShapes(t *testing.T) {
	p := newProject(t)
	p.writeFile(t, "notes.txt", "remember the milk\n")
	script := p.script(t, "output", nil)
	const answer = "The notes say to remember the milk; the checks pass."
	args := []string{"-p", "what do the notes say?", "--provider", "script", "--script", script,
		"--allowedTools", "Read,Bash(echo *)", "--disallowedTools", "Bash(rm *)"}

	lines := jsonLines(t, p.mustRun(t, append(args, "--output-format", "stream-json", "--verbose")...).Stdout)
	if len(lines) < 2 {
		t.Fatalf("stream-json printed %d lines", len(lines))
	}
	init := lines[0]
	v := shapeChecker{t: t}
	v.at("line 1").want(init, "type", "system").want(init, "subtype", "init")
	sessionID := v.str(init, "session_id")
	v.want(init, "cwd", p.Dir)
	v.str(init, "model")
	if mode := v.str(init, "permissionMode"); !slices.Contains([]string{"default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"}, mode) {
		t.Fatalf("system/init permissionMode %q is not a mode", mode)
	}
	tools := v.strings(init, "tools")
	for _, want := range []string{"Read", "Bash", "Edit", "Write", "Glob", "Grep"} {
		if !slices.Contains(tools, want) {
			t.Fatalf("system/init tools %v lack %s", tools, want)
		}
	}

	toolUses := map[string]map[string]any{} // id → tool_use block
	var answered []string
	assistants := 0
	messageIDs := map[any]bool{} // an assistant message is a line per content block, one id
	for i, line := range lines[1 : len(lines)-1] {
		v.at(fmt.Sprintf("line %d", i+2)).want(line, "session_id", sessionID)
		if _, ok := line["parent_tool_use_id"]; !ok || line["parent_tool_use_id"] != nil {
			t.Fatalf("line %d: parent_tool_use_id = %v, want null", i+2, line["parent_tool_use_id"])
		}
		msg := v.obj(line, "message")
		switch line["type"] {
		case "assistant":
			if !messageIDs[msg["id"]] {
				messageIDs[msg["id"]] = true
				assistants++
			}
			if n := len(v.blocks(msg)); n != 1 {
				t.Fatalf("line %d: an assistant line with %d content blocks, want one (Claude Code's shape)", i+2, n)
			}
			v.want(msg, "role", "assistant")
			for _, b := range v.blocks(msg) {
				switch b["type"] {
				case "text":
					v.str(b, "text")
				case "tool_use":
					id := v.str(b, "id")
					v.str(b, "name")
					v.obj(b, "input")
					toolUses[id] = b
				default:
					t.Fatalf("line %d: assistant content block type %v", i+2, b["type"])
				}
			}
		case "user":
			v.want(msg, "role", "user")
			for _, b := range v.blocks(msg) {
				v.want(b, "type", "tool_result")
				id := v.str(b, "tool_use_id")
				if toolUses[id] == nil || slices.Contains(answered, id) {
					t.Fatalf("line %d: tool_result for %q, which is not an earlier unanswered tool_use", i+2, id)
				}
				answered = append(answered, id)
				if _, ok := b["content"].(string); !ok {
					if _, ok := b["content"].([]any); !ok {
						t.Fatalf("line %d: tool_result content is %T", i+2, b["content"])
					}
				}
				if isErr, ok := b["is_error"]; ok && isErr != (id == "toolu_rm") {
					t.Fatalf("line %d: tool_result %s is_error = %v", i+2, id, isErr)
				}
			}
		default:
			t.Fatalf("line %d: type %v, want assistant or user between init and result", i+2, line["type"])
		}
	}
	slices.Sort(answered)
	if want := []string{"toolu_echo", "toolu_read", "toolu_rm"}; !slices.Equal(answered, want) || len(toolUses) != 3 {
		t.Fatalf("tool_use ids %v answered by tool_results %v, want %v", keys(toolUses), answered, want)
	}

	res := lines[len(lines)-1]
	v.at("result line")
	checkResult(v, res, sessionID, answer, assistants)
	denials := v.list(res, "permission_denials")
	wantDenial := []any{map[string]any{"tool_name": "Bash", "tool_use_id": "toolu_rm",
		"tool_input": map[string]any{"command": "rm -rf build"}}}
	if !reflect.DeepEqual(denials, wantDenial) {
		t.Fatalf("permission_denials = %v, want %v", denials, wantDenial)
	}

	// json: one result object with the same content.
	jsonOut := p.mustRun(t, append(args, "--output-format", "json")...).Stdout
	obj := resultObject(t, jsonOut)
	v.at("json output")
	checkResult(v, obj, v.str(obj, "session_id"), answer, assistants)
	if !reflect.DeepEqual(obj["permission_denials"], wantDenial) {
		t.Fatalf("json permission_denials = %v, want %v", obj["permission_denials"], wantDenial)
	}

	// text: just the answer.
	if got := p.mustRun(t, append(args, "--output-format", "text")...).Stdout; got != answer+"\n" {
		t.Fatalf("text output = %q, want %q", got, answer+"\n")
	}
}

// checkResult validates a successful result object.
func checkResult(v shapeChecker, res map[string]any, sessionID, answer string, turns int) {
	v.t.Helper()
	v.want(res, "type", "result").want(res, "subtype", "success").want(res, "is_error", false)
	v.want(res, "session_id", sessionID).want(res, "result", answer)
	if n := v.num(res, "num_turns"); n != float64(turns) {
		v.t.Fatalf("%s: num_turns = %v, want %d (one per model round)", v.where, n, turns)
	}
	if d := v.num(res, "duration_ms"); d < 0 {
		v.t.Fatalf("%s: duration_ms = %v", v.where, d)
	}
	usage := v.obj(res, "usage")
	if v.num(usage, "input_tokens") <= 0 || v.num(usage, "output_tokens") <= 0 {
		v.t.Fatalf("%s: usage = %v, want the run's token counts", v.where, usage)
	}
}

// shapeChecker asserts JSON shapes and names the line in failures.
type shapeChecker struct {
	t     *testing.T
	where string
}

func (v *shapeChecker) at(where string) *shapeChecker { v.where = where; return v }

func (v *shapeChecker) field(m map[string]any, key string) any {
	v.t.Helper()
	x, ok := m[key]
	if !ok {
		v.t.Fatalf("%s: no %q in %v", v.where, key, m)
	}
	return x
}

func (v *shapeChecker) want(m map[string]any, key string, want any) *shapeChecker {
	v.t.Helper()
	if got := v.field(m, key); got != want {
		v.t.Fatalf("%s: %s = %v, want %v", v.where, key, got, want)
	}
	return v
}

func (v *shapeChecker) str(m map[string]any, key string) string {
	v.t.Helper()
	s, ok := v.field(m, key).(string)
	if !ok || s == "" {
		v.t.Fatalf("%s: %s = %v, want a non-empty string", v.where, key, m[key])
	}
	return s
}

func (v *shapeChecker) num(m map[string]any, key string) float64 {
	v.t.Helper()
	n, ok := v.field(m, key).(float64)
	if !ok {
		v.t.Fatalf("%s: %s = %v, want a number", v.where, key, m[key])
	}
	return n
}

func (v *shapeChecker) obj(m map[string]any, key string) map[string]any {
	v.t.Helper()
	o, ok := v.field(m, key).(map[string]any)
	if !ok {
		v.t.Fatalf("%s: %s = %v, want an object", v.where, key, m[key])
	}
	return o
}

func (v *shapeChecker) list(m map[string]any, key string) []any {
	v.t.Helper()
	l, ok := v.field(m, key).([]any)
	if !ok {
		v.t.Fatalf("%s: %s = %v, want an array", v.where, key, m[key])
	}
	return l
}

func (v *shapeChecker) strings(m map[string]any, key string) []string {
	v.t.Helper()
	var out []string
	for _, x := range v.list(m, key) {
		s, ok := x.(string)
		if !ok {
			v.t.Fatalf("%s: %s holds %v, want strings", v.where, key, x)
		}
		out = append(out, s)
	}
	return out
}

// blocks returns a message's content blocks: a non-empty array of objects.
func (v *shapeChecker) blocks(msg map[string]any) []map[string]any {
	v.t.Helper()
	var out []map[string]any
	for _, x := range v.list(msg, "content") {
		b, ok := x.(map[string]any)
		if !ok {
			v.t.Fatalf("%s: content block %v is not an object", v.where, x)
		}
		out = append(out, b)
	}
	if len(out) == 0 {
		v.t.Fatalf("%s: message without content blocks", v.where)
	}
	return out
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestHeadlessFailedRunExitsNonZero: a run whose provider fails exits non-zero in every
// format, reports is_error with an error subtype in json and stream-json, names the failure
// on stderr in text mode, logs it, keeps the history, and the session resumes.
func TestHeadlessFailedRunExitsNonZero(t *testing.T) {
	p := newProject(t)
	script := p.script(t, "error", nil)
	base := []string{"--provider", "script", "--script", script}

	failed := p.run(t, append([]string{"-p", "please fail", "--output-format", "json"}, base...)...)
	if failed.Code == 0 {
		t.Fatalf("a failed run exited 0:\n%s", failed.Stdout)
	}
	res := resultObject(t, failed.Stdout)
	if res["is_error"] != true || !strings.HasPrefix(fmt.Sprint(res["subtype"]), "error_") {
		t.Fatalf("failed run: is_error %v subtype %v, want true and an error_ subtype", res["is_error"], res["subtype"])
	}
	if !strings.Contains(fmt.Sprint(res["errors"]), "scripted upstream failure") {
		t.Fatalf("failed run: errors %v do not name the provider error", res["errors"])
	}
	id, _ := res["session_id"].(string)

	stream := p.run(t, append([]string{"-p", "please fail", "--output-format", "stream-json"}, base...)...)
	lines := jsonLines(t, stream.Stdout)
	if last := lines[len(lines)-1]; stream.Code == 0 || last["type"] != "result" || last["is_error"] != true {
		t.Fatalf("stream-json failed run: exit %d, last line %v", stream.Code, last)
	}
	text := p.run(t, append([]string{"-p", "please fail", "--output-format", "text"}, base...)...)
	if text.Code == 0 || !strings.Contains(text.Stderr, "scripted upstream failure") {
		t.Fatalf("text failed run: exit %d, stderr %q", text.Code, text.Stderr)
	}

	// The failure is logged and the history kept; the next run of the session works.
	logged := false
	for _, e := range p.readLog(t, id) {
		logged = logged || (e.Event == "error" && strings.Contains(string(e.Data), "scripted upstream failure"))
	}
	if !logged {
		t.Fatalf("the log of %s has no error event naming the failure", id)
	}
	if got := userTexts(p.record(t, id)); !slices.Equal(got, []string{"please fail"}) {
		t.Fatalf("record after the failure holds user messages %q", got)
	}
	next := resultObject(t, p.mustRun(t, append([]string{"-p", "recover", "--resume", id, "--output-format", "json"}, base...)...).Stdout)
	wantSession(t, "resume after failure", next, id)
	wantResult(t, "resume after failure", next, "Recovered fine.")
	if got := userTexts(p.record(t, id)); !slices.Equal(got, []string{"please fail", "recover"}) {
		t.Fatalf("record after the resumed run holds user messages %q", got)
	}
}

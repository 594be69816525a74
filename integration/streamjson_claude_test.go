package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Issue 24 §1: robota's stream-json, line by line, against Claude Code 2.1.197's for the
// same scripted session: initialize, a plain answer streamed in pieces
// (--include-partial-messages), a Bash call approved over can_use_tool, a
// set_permission_mode, then stdin closes. Both run against the same fake Messages API.
//
// Each line is reduced to its shape (shapeOf): its kind (type, subtype, event type,
// content block types) and the set of keys it carries, values dropped except those
// that say what the line is. Claude Code's shapes are kept in
// testdata/streamjson/claude-2.1.197.jsonl, so CI compares without Claude Code; with
// Claude Code installed (`claude` on PATH, or $ROBOTA_CLAUDE_BIN) it is run too and its
// live shapes must equal the recorded ones (ROBOTA_RECORD_CLAUDE=1 rewrites the file).
//
// The kinds must come in the same order. Every key Claude Code puts on a line robota
// must put there too, except those in claudeOnlyKeys, each with why robota has none.
func TestStreamJSONMatchesClaudeCode(t *testing.T) {
	recorded := filepath.Join("testdata", "streamjson", "claude-2.1.197.jsonl")
	want := readShapes(t, recorded)
	if bin := claudeBinary(); bin != "" {
		live := runScriptedStreamJSON(t, bin, true)
		if os.Getenv("ROBOTA_RECORD_CLAUDE") == "1" {
			writeShapes(t, recorded, live)
			want = live
		} else if diff := diffShapes(want, live, nil); diff != "" {
			t.Errorf("Claude Code's live stream-json differs from the recorded one (ROBOTA_RECORD_CLAUDE=1 re-records):\n%s", diff)
		}
	}
	if len(want) == 0 {
		t.Fatalf("no recorded Claude Code shapes in %s", recorded)
	}
	got := runScriptedStreamJSON(t, filepath.Join(binDir, "robota"), false)
	if diff := diffShapes(normalizeShapes(want), normalizeShapes(got), claudeOnlyKeys); diff != "" {
		t.Errorf("robota's stream-json differs from Claude Code 2.1.197's:\n%s", diff)
	}
}

// normalizeShapes removes the differences robota keeps on purpose, each with its reason:
//   - system/status "requesting" lines: Claude Code reports each model request starting;
//     robota's session has no event for it (its clients see the stream_event lines).
//   - a run of input_json_delta events is one: robota's providers hand the session a
//     tool call's input whole, so it is one delta (the text deltas are one to one).
//   - can_use_tool comes after the message's message_stop: Claude Code starts a tool
//     as its block completes, robota once the message is complete.
func normalizeShapes(in []lineShape) []lineShape {
	var out []lineShape
	var asks []lineShape // can_use_tool lines waiting for the message's end
	inMessage := false
	for _, s := range in {
		switch {
		case s.Kind == "stream_event/message_start":
			inMessage = true
		case s.Kind == "control_request/can_use_tool" && !inMessage:
			out = append(out, s)
			continue
		case s.Kind == "system/status/requesting":
			continue
		case s.Kind == "stream_event/content_block_delta/input_json_delta" && len(out) > 0 && out[len(out)-1].Kind == s.Kind:
			continue
		case s.Kind == "control_request/can_use_tool":
			asks = append(asks, s)
			continue
		}
		out = append(out, s)
		if s.Kind == "stream_event/message_stop" {
			out, asks, inMessage = append(out, asks...), nil, false
		}
	}
	return append(out, asks...)
}

// claudeOnlyKeys are keys Claude Code writes that robota does not, by line kind ("*" for
// every kind), with the reason.
var claudeOnlyKeys = map[string]map[string]string{
	"*": {},
	"system/init": {
		"claude_code_version":       "robota is not Claude Code; its version is robota --version",
		"memory_paths":              "robota's memory is .robota/memory, read through /memory, not an auto-memory directory",
		"analytics_disabled":        "robota sends no analytics",
		"product_feedback_disabled": "robota asks for no product feedback",
		"fast_mode_state":           "robota has no fast mode",
	},
	"stream_event/message_start": {"ttft_ms": "robota measures no time to first token"},
	"user/tool_result": {
		"timestamp":       "robota's lines carry no wall-clock time (its session log has it)",
		"tool_use_result": "Claude Code's per-tool structured result; the tool_result block carries the content",
	},
	"control_request/can_use_tool": {
		"request.display_name": "Claude Code's UI label of the tool; tool_name names it",
		"request.description":  "Claude Code's UI text of the call; input carries the command's own description",
		"request.blocked_path": "robota's decision reason names the path",
	},
	"result/success": {
		"fast_mode_state":       "robota has no fast mode",
		"terminal_reason":       "subtype and stop_reason say how the run ended",
		"time_to_request_ms":    "robota measures no request timings",
		"ttft_ms":               "robota measures no request timings",
		"ttft_stream_ms":        "robota measures no request timings",
		"usage.cache_creation":  "Anthropic's cache breakdown by lifetime; cache_creation_input_tokens has the total",
		"usage.inference_geo":   "Anthropic-only billing detail",
		"usage.iterations":      "Anthropic-only billing detail",
		"usage.server_tool_use": "server tool use is counted in modelUsage's webSearchRequests",
		"usage.service_tier":    "Anthropic-only billing detail",
		"usage.speed":           "Anthropic-only billing detail",
	},
}

// claudeBinary is Claude Code's executable when it is installed at the recorded version.
func claudeBinary() string {
	bin := os.Getenv("ROBOTA_CLAUDE_BIN")
	if bin == "" {
		bin, _ = exec.LookPath("claude")
	}
	if bin == "" {
		return ""
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil || !strings.HasPrefix(string(out), "2.1.197 ") {
		return ""
	}
	return bin
}

// runScriptedStreamJSON runs the scripted session through bin and returns its lines'
// shapes.
func runScriptedStreamJSON(t *testing.T, bin string, isClaude bool) []lineShape {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	p := newProject(t)
	fake := newFakeMessagesAPI(t, []fakeRule{
		{Name: "bash-result", When: resultOf("Bash"), Reply: fakeReply{Text: "the command ran"}},
		{Name: "greet", When: userSays("say hello"), Reply: fakeReply{Text: "hello there friend", Chunks: []string{"hello ", "there ", "friend"}}},
		{Name: "bash", When: userSays("run the command"), Reply: fakeReply{Text: "Running it.", Tool: "Bash",
			Input: map[string]any{"command": "echo hi > ran.txt", "description": "write a marker"}}},
		// Claude Code's side requests (titles, topics) get a plain answer.
		{Name: "other", When: func(fakeRequest) bool { return true }, Reply: fakeReply{Text: "ok"}},
	})
	srv := httptest.NewServer(fake)
	defer srv.Close()
	args := []string{"-p", "--output-format", "stream-json", "--verbose", "--input-format", "stream-json",
		"--include-partial-messages", "--permission-prompt-tool", "stdio", "--model", "claude-sonnet-4-5",
		"--disallowedTools", "Read,Write,Edit"}
	if !isClaude {
		args = append(args, "--provider", "anthropic")
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = p.Dir
	cmd.Env = append(p.env(), "ANTHROPIC_BASE_URL="+srv.URL, "ANTHROPIC_API_KEY=test-key",
		"DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
	cmd.WaitDelay = 2 * time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := newStreamProc(t, stdin, stdout)
	var shapes []lineShape
	// until reads lines (answering can_use_tool with an allow) until stop says so.
	until := func(what string, stop func(m map[string]any) bool) {
		for {
			select {
			case m, ok := <-s.lines:
				if !ok {
					t.Fatalf("%s: output ended before %s\nstderr:\n%s", bin, what, stderr.String())
				}
				shapes = append(shapes, shapeOf(m))
				if req, _ := m["request"].(map[string]any); m["type"] == "control_request" && req["subtype"] == "can_use_tool" {
					s.answer(m, map[string]any{"behavior": "allow", "updatedInput": req["input"]})
				}
				if stop(m) {
					return
				}
			case <-ctx.Done():
				t.Fatalf("%s: timed out waiting for %s\nstderr:\n%s", bin, what, stderr.String())
			}
		}
	}
	isResult := func(m map[string]any) bool { return m["type"] == "result" }

	s.send(map[string]any{"type": "control_request", "request_id": "req_init", "request": map[string]any{"subtype": "initialize"}})
	until("the initialize response", responseTo("req_init"))
	s.user("please say hello")
	until("the first result", isResult)
	s.user("please run the command")
	until("the second result", isResult)
	s.send(map[string]any{"type": "control_request", "request_id": "req_mode",
		"request": map[string]any{"subtype": "set_permission_mode", "mode": "acceptEdits"}})
	until("the set_permission_mode response", responseTo("req_mode"))
	stdin.Close()
	for m := range s.lines {
		shapes = append(shapes, shapeOf(m))
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%s: %v\nstderr:\n%s", bin, err, stderr.String())
	}
	if b, err := os.ReadFile(filepath.Join(p.Dir, "ran.txt")); err != nil || string(b) != "hi\n" {
		t.Errorf("%s: the approved Bash did not write ran.txt (%q, %v)", bin, b, err)
	}
	return shapes
}

// lineShape is what the comparison sees of one output line.
type lineShape struct {
	Kind string   `json:"kind"`
	Keys []string `json:"keys"`
}

// shapeOf names a line's kind and lists its keys: the top level's, and those of the
// objects that carry a message (message, event, request, response and their first
// level), as "parent.key".
func shapeOf(m map[string]any) lineShape {
	kind := fmt.Sprint(m["type"])
	str := func(v any) string { s, _ := v.(string); return s }
	obj := func(v any) map[string]any { o, _ := v.(map[string]any); return o }
	switch kind {
	case "system", "result":
		kind += "/" + str(m["subtype"])
		if st := str(m["status"]); m["subtype"] == "status" && st != "" {
			kind += "/" + st
		} else if m["subtype"] == "status" && m["permissionMode"] != nil {
			kind += "/permissionMode"
		}
	case "stream_event":
		ev := obj(m["event"])
		kind += "/" + str(ev["type"])
		if d := obj(ev["delta"]); str(d["type"]) != "" {
			kind += "/" + str(d["type"])
		}
		if b := obj(ev["content_block"]); b != nil {
			kind += "/" + str(b["type"])
		}
	case "assistant", "user":
		msg := obj(m["message"])
		if content, ok := msg["content"].([]any); ok {
			for _, c := range content {
				kind += "/" + str(obj(c)["type"])
			}
		} else if _, isText := msg["content"].(string); isText {
			kind += "/string"
		}
	case "control_request":
		kind += "/" + str(obj(m["request"])["subtype"])
	case "control_response":
		kind += "/" + str(obj(m["response"])["subtype"])
	}
	var keys []string
	var walk func(prefix string, o map[string]any, depth int)
	walk = func(prefix string, o map[string]any, depth int) {
		for k, v := range o {
			keys = append(keys, prefix+k)
			if sub := obj(v); sub != nil && depth < 2 && slices.Contains([]string{"message", "event", "request", "response", "usage", "delta"}, k) {
				walk(prefix+k+".", sub, depth+1)
			}
		}
	}
	walk("", m, 0)
	slices.Sort(keys)
	return lineShape{Kind: kind, Keys: keys}
}

// diffShapes lists how got differs from want: kinds out of order, and keys of want's
// lines that got's lacks (except those allowed).
func diffShapes(want, got []lineShape, allowed map[string]map[string]string) string {
	var b strings.Builder
	wk, gk := kinds(want), kinds(got)
	if !slices.Equal(wk, gk) {
		fmt.Fprintf(&b, "line kinds differ:\n  want %s\n  got  %s\n", strings.Join(wk, "\n       "), strings.Join(gk, "\n       "))
		return b.String()
	}
	for i := range want {
		for _, k := range want[i].Keys {
			if slices.Contains(got[i].Keys, k) {
				continue
			}
			if _, ok := allowed["*"][k]; ok {
				continue
			}
			if _, ok := allowed[want[i].Kind][k]; ok {
				continue
			}
			fmt.Fprintf(&b, "line %d (%s): no %q\n", i+1, want[i].Kind, k)
		}
	}
	return b.String()
}

func kinds(shapes []lineShape) []string {
	out := make([]string, len(shapes))
	for i, s := range shapes {
		out[i] = s.Kind
	}
	return out
}

func readShapes(t *testing.T, path string) []lineShape {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []lineShape
	dec := json.NewDecoder(f)
	for {
		var s lineShape
		if err := dec.Decode(&s); err == io.EOF {
			return out
		} else if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, s)
	}
}

func writeShapes(t *testing.T, path string, shapes []lineShape) {
	t.Helper()
	var b strings.Builder
	for _, s := range shapes {
		line, _ := json.Marshal(s)
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

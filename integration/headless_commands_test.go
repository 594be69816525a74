package integration

import (
	"reflect"
	"strings"
	"testing"
)

// Issue 14 §1: robota -p "/compact" runs the command on the resumed conversation instead
// of sending the text to the model (stream-json: a compact_boundary and a result line
// with the command's message, and the stored conversation compacted); an unknown /name
// says so and exits 1.
func TestHeadlessSlashCommands(t *testing.T) {
	p := newProject(t)
	script := p.writeScript(t, "cmds.yaml", `
turns:
  - when: {compaction: true}
    text: "[Context Summary] the user said hello"
    repeat: true
  - text: "hello back, a long answer to compact"
`)
	base := []string{"--provider", "script", "--script", script}

	r1 := resultObject(t, p.mustRun(t, append([]string{"-p", "hello", "--output-format", "json"}, base...)...).Stdout)
	id, _ := r1["session_id"].(string)
	if id == "" || r1["result"] != "hello back, a long answer to compact" {
		t.Fatalf("run 1: %v", r1)
	}

	out := p.mustRun(t, append([]string{"-p", "/compact keep the greeting", "--resume", id, "--output-format", "stream-json", "--verbose"}, base...)...).Stdout
	lines := jsonLines(t, out)
	var boundary, result map[string]any
	for _, l := range lines {
		if l["type"] == "system" && l["subtype"] == "compact_boundary" {
			boundary = l
		}
		if l["type"] == "result" {
			result = l
		}
		if l["type"] == "assistant" {
			t.Errorf("the model was asked for /compact: %v", l)
		}
	}
	if boundary == nil {
		t.Errorf("no compact_boundary line in %s", out)
	}
	if result == nil || result["is_error"] != false || !strings.HasPrefix(result["result"].(string), "Conversation compacted") {
		t.Fatalf("/compact result = %v", result)
	}
	rec := p.record(t, id)
	var texts []string
	for _, m := range rec.Messages {
		texts = append(texts, m.text())
	}
	all := strings.Join(texts, "\n")
	if !strings.Contains(all, "[Context Summary] the user said hello") || strings.Contains(all, "hello back, a long answer") {
		t.Fatalf("the stored conversation was not compacted: %q", all)
	}

	res := p.run(t, append([]string{"-p", "/frobnicate now"}, base...)...)
	if res.Code != 1 || strings.TrimSpace(res.Stdout) != "Unknown command: /frobnicate" {
		t.Fatalf("/frobnicate: exit %d, stdout %q, stderr %q", res.Code, res.Stdout, res.Stderr)
	}
}

// robota -p "/name" --engine runs the command in the engine's session and prints what
// the in-process run prints, with the same exit status.
func TestEngineClientSlashCommandsEqualInProcess(t *testing.T) {
	p, addr := engineProject(t)
	script := p.writeScript(t, "cmds.yaml", "turns:\n  - text: hi\n    repeat: true\n")
	for _, prompt := range []string{"/mode plan", "/frobnicate", "/compact", "/memory list"} {
		args := []string{"-p", prompt, "--provider", "script", "--script", script, "--output-format", "json"}
		local, remote := p.run(t, args...), p.run(t, append(args, "--engine", addr)...)
		if local.Code != remote.Code {
			t.Errorf("%s: exit in-process %d, --engine %d (stderr %q)", prompt, local.Code, remote.Code, remote.Stderr)
		}
		if !reflect.DeepEqual(normalizedLines(t, remote.Stdout), normalizedLines(t, local.Stdout)) {
			t.Errorf("%s: output differs:\n--engine:   %s\nin-process: %s", prompt, remote.Stdout, local.Stdout)
		}
	}
}

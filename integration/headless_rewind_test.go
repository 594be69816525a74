package integration

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Issue 14 §4 over the real binary: a prompt edits three files (one edited, one
// rewritten, one created); a later run resumes the session and `/rewind code ID`
// brings the first two back and removes the third. Then `/rewind ID` also cuts the
// conversation back to before that prompt, saved so a further resume sees it.
func TestHeadlessRewindThreeFilesAfterResume(t *testing.T) {
	p := newProject(t)
	a := p.writeFile(t, "a.txt", "alpha one\n")
	b := p.writeFile(t, "b.txt", "beta one\n")
	c := filepath.Join(p.Dir, "c.txt")
	script := p.writeScript(t, "rewind.yaml", `
turns:
  - when: {lastUserContains: "say hello"}
    text: "hello"
  - when: {lastUserContains: "change the three files"}
    text: "Changing them."
    toolCalls:
      - name: Edit
        input: {file_path: "`+a+`", old_string: "alpha one", new_string: "alpha two"}
      - name: Write
        input: {file_path: "`+b+`", content: "beta two\n"}
      - name: Write
        input: {file_path: "`+c+`", content: "gamma\n"}
  - text: "Done: three files changed."
`)
	base := []string{"--provider", "script", "--script", script, "--output-format", "json"}

	id := resultObject(t, p.mustRun(t, append([]string{"-p", "say hello"}, base...)...).Stdout)["session_id"].(string)
	r2 := resultObject(t, p.mustRun(t, append([]string{"-p", "change the three files", "--resume", id,
		"--permission-mode", "acceptEdits"}, base...)...).Stdout)
	if r2["result"] != "Done: three files changed." {
		t.Fatalf("edit run: %v", r2)
	}
	assertFile(t, a, "alpha two\n")
	assertFile(t, b, "beta two\n")
	assertFile(t, c, "gamma\n")

	list := resultObject(t, p.mustRun(t, append([]string{"-p", "/rewind list", "--resume", id}, base...)...).Stdout)
	listing, _ := list["result"].(string)
	if !strings.Contains(listing, "Files changed by Bash are not tracked.") {
		t.Errorf("/rewind list does not say Bash edits are untracked: %q", listing)
	}
	// "ID  date time  "prompt"  N file(s)": the checkpoint of the editing prompt.
	m := regexp.MustCompile(`(?m)^(\S+)  \S+ \S+  "change the three files"  3 file\(s\)$`).FindStringSubmatch(listing)
	if m == nil {
		t.Fatalf("no checkpoint of the editing prompt with 3 files in /rewind list:\n%s", listing)
	}
	cp := m[1]

	code := resultObject(t, p.mustRun(t, append([]string{"-p", "/rewind code " + cp, "--resume", id}, base...)...).Stdout)
	if msg, _ := code["result"].(string); !strings.Contains(msg, "2 restored, 1 removed") {
		t.Errorf("/rewind code: %v", code)
	}
	assertFile(t, a, "alpha one\n")
	assertFile(t, b, "beta one\n")
	if _, err := os.Stat(c); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("c.txt, created by the rewound prompt, is still there (err %v)", err)
	}
	before := len(p.record(t, id).Messages)

	conv := resultObject(t, p.mustRun(t, append([]string{"-p", "/rewind " + cp, "--resume", id}, base...)...).Stdout)
	if conv["is_error"] != false {
		t.Fatalf("/rewind ID: %v", conv)
	}
	var texts []string
	for _, m := range p.record(t, id).Messages {
		texts = append(texts, m.text())
	}
	all := strings.Join(texts, "\n")
	if len(texts) >= before || strings.Contains(all, "change the three files") || !strings.Contains(all, "say hello") {
		t.Fatalf("the conversation was not cut back to before the editing prompt (%d messages, were %d): %q", len(texts), before, all)
	}

	unknown := p.run(t, append([]string{"-p", "/rewind code nope", "--resume", id}, base...)...)
	if unknown.Code != 1 || !strings.Contains(unknown.Stdout, `No checkpoint \"nope\"`) {
		t.Errorf("/rewind code of an unknown checkpoint: exit %d, %s", unknown.Code, unknown.Stdout)
	}
}

// Issue 14 acceptance: `robota -p "/context"` and `robota -p "/compact keep the API
// notes"` work headless: the first answers from the session's context state without a
// model call (3 messages: the system prompt, the question, the answer); the second sends the instructions with the compaction request.
func TestHeadlessContextAndCompactWithInstructions(t *testing.T) {
	p := newProject(t)
	script := filepath.Join(p.Scripts, "ctx.yaml")
	// The only compaction turn requires the instructions: without them the script has
	// no turn to give and the run fails.
	if err := os.WriteFile(script, []byte(`
turns:
  - when: {compaction: true, lastUserContains: "keep the API notes"}
    text: "The user asked about the API; notes kept."
  - text: "The API takes a token and returns JSON."
    usage: {inputTokens: 1200, outputTokens: 30}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	base := []string{"--provider", "script", "--script", script, "--output-format", "json"}
	id := resultObject(t, p.mustRun(t, append([]string{"-p", "how does the API work?"}, base...)...).Stdout)["session_id"].(string)

	ctx := resultObject(t, p.mustRun(t, append([]string{"-p", "/context", "--resume", id}, base...)...).Stdout)
	msg, _ := ctx["result"].(string)
	if !regexp.MustCompile(`^Context: [1-9]\d* / [1-9]\d* tokens \(\d+\.\d%\), 3 messages\.$`).MatchString(msg) {
		t.Errorf("/context = %q", msg)
	}

	res := resultObject(t, p.mustRun(t, append([]string{"-p", "/compact keep the API notes", "--resume", id}, base...)...).Stdout)
	if msg, _ := res["result"].(string); !strings.HasPrefix(msg, "Conversation compacted") || res["is_error"] != false {
		t.Fatalf("/compact keep the API notes: %v", res)
	}
	var texts []string
	for _, m := range p.record(t, id).Messages {
		texts = append(texts, m.text())
	}
	if all := strings.Join(texts, "\n"); !strings.Contains(all, "notes kept") || strings.Contains(all, "returns JSON") {
		t.Fatalf("the stored conversation is not the summary: %q", all)
	}
}

func assertFile(t *testing.T, path, want string) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Errorf("%s: %v", filepath.Base(path), err)
		return
	}
	if string(got) != want {
		t.Errorf("%s = %q, want %q", filepath.Base(path), got, want)
	}
}

package integration

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const memorySecret = "sk-ant-api03-Qm7Lx2Vb9Nc4Zd8Wf1Gh6Jk3"

// Issue 14 §5 over the real binary: /memory add writes the project memory, the secret
// policy refuses a key without writing or echoing it, the memory audit trail and the used
// references survive --resume (/memory used reports them), and the next session's system
// prompt holds the memory index.
func TestHeadlessMemoryAcrossResume(t *testing.T) {
	p := newProject(t)
	script := p.writeFile(t, "scripts/memory.yaml", `
turns:
  - when: {systemContains: "# Project Memory\n\n- build (project): use make"}
    text: "memory seen"
    repeat: true
  - text: "no memory in the system prompt"
    repeat: true
`)
	base := []string{"--provider", "script", "--script", script}
	r1 := resultObject(t, p.mustRun(t, append([]string{"-p", "/memory add project build use make", "--output-format", "json"}, base...)...).Stdout)
	id, _ := r1["session_id"].(string)
	if id == "" || r1["result"] != "Saved to .robota/memory/topics/build.md (project)." {
		t.Fatalf("add: %v", r1)
	}
	if out := p.mustRun(t, append([]string{"-p", "/memory show build", "--resume", id}, base...)...).Stdout; !strings.HasPrefix(out, "# build\n\n- [project] use make _(") {
		t.Fatalf("show: %q", out)
	}
	bad := p.run(t, append([]string{"-p", "/memory add project keys deploy with " + memorySecret, "--resume", id}, base...)...)
	if bad.Code != 1 || !strings.HasPrefix(bad.Stdout, "Not saved: it looks like an Anthropic API key") {
		t.Fatalf("secret: exit %d, stdout %q, stderr %q", bad.Code, bad.Stdout, bad.Stderr)
	}
	used := p.mustRun(t, append([]string{"-p", "/memory used", "--resume", id}, base...)...).Stdout
	if !strings.HasPrefix(used, "1 memory reference(s) used in this session, 3 memory event(s).\nbuild  .robota/memory/topics/build.md  1 entry") {
		t.Fatalf("used after resume: %q", used)
	}
	if out := p.mustRun(t, append([]string{"-p", "/memory list", "--resume", id}, base...)...).Stdout; !strings.HasPrefix(out, "1 memory topic(s), 0 pending candidate(s).\nbuild  1 entry") {
		t.Fatalf("list: %q", out)
	}
	// A new session's system prompt holds the index (the script answers on it).
	if r := resultObject(t, p.mustRun(t, append([]string{"-p", "hello", "--output-format", "json"}, base...)...).Stdout); r["result"] != "memory seen" {
		t.Fatalf("new session: %v", r["result"])
	}
	// The refused key is in no file robota wrote.
	_ = filepath.WalkDir(p.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if b, _ := os.ReadFile(path); strings.Contains(string(b), memorySecret[12:]) {
			t.Errorf("%s holds the refused key", path)
		}
		return nil
	})
}

// Issue 14 §6: /rename names a session; robota --resume NAME resumes it, in process and
// through --engine; an unknown or ambiguous name is an error listing what there is.
func TestHeadlessResumeByName(t *testing.T) {
	p, addr := engineProject(t)
	script := p.writeFile(t, "scripts/hi.yaml", "turns:\n  - text: hi\n    repeat: true\n")
	base := []string{"--provider", "script", "--script", script, "--output-format", "json"}
	first := resultObject(t, p.mustRun(t, append([]string{"-p", "hello"}, base...)...).Stdout)["session_id"].(string)
	if r := resultObject(t, p.mustRun(t, append([]string{"-p", "/rename api work", "--resume", first}, base...)...).Stdout); r["result"] != "Session renamed to api work" {
		t.Fatalf("rename: %v", r)
	}
	r := resultObject(t, p.mustRun(t, append([]string{"-p", "again", "--resume", "api work"}, base...)...).Stdout)
	if r["session_id"] != first || r["result"] != "hi" {
		t.Fatalf("--resume NAME: %v", r)
	}
	if got := len(p.record(t, first).Messages); got != 5 { // system, 2 × (user, assistant)
		t.Fatalf("resumed session has %d messages", got)
	}
	r = resultObject(t, p.mustRun(t, append([]string{"-p", "via engine", "--resume", "api work", "--engine", addr}, base...)...).Stdout)
	if r["session_id"] != first {
		t.Fatalf("--resume NAME --engine: %v", r)
	}

	unknown := p.run(t, append([]string{"-p", "x", "--resume", "other work"}, base...)...)
	if unknown.Code != 1 || !strings.Contains(unknown.Stderr, `no such session`) || !strings.Contains(unknown.Stderr, `named sessions: "api work"`) {
		t.Fatalf("unknown name: exit %d, stderr %q", unknown.Code, unknown.Stderr)
	}
	second := resultObject(t, p.mustRun(t, append([]string{"-p", "hello"}, base...)...).Stdout)["session_id"].(string)
	p.mustRun(t, append([]string{"-p", "/rename api work", "--resume", second}, base...)...)
	amb := p.run(t, append([]string{"-p", "x", "--resume", "api work"}, base...)...)
	if amb.Code != 1 || !strings.Contains(amb.Stderr, `2 sessions are named "api work"`) ||
		!strings.Contains(amb.Stderr, first) || !strings.Contains(amb.Stderr, second) {
		t.Fatalf("ambiguous name: exit %d, stderr %q", amb.Code, amb.Stderr)
	}
}

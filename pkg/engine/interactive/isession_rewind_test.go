package interactive_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	. "github.com/robota-sdk/robota-go/pkg/engine/interactive"

	"github.com/robota-sdk/robota-go/pkg/engine/checkpoint"
)

// rewindScript: the first prompt rewrites a.txt; the second edits it, creates b.txt
// and rewrites c.txt.
const rewindScript = `
turns:
  - toolCalls: [{id: r1, name: Read, input: {file_path: %[1]q}}]
  - toolCalls: [{id: w1, name: Write, input: {file_path: %[1]q, content: "v1\n"}}]
  - text: "wrote a"
  - toolCalls: [{id: r2, name: Read, input: {file_path: %[1]q}}, {id: r3, name: Read, input: {file_path: %[3]q}}]
  - toolCalls:
      - {id: e1, name: Edit, input: {file_path: %[1]q, old_string: "v1", new_string: "v2"}}
      - {id: w2, name: Write, input: {file_path: %[2]q, content: "new\n"}}
      - {id: w3, name: Write, input: {file_path: %[3]q, content: "c2\n"}}
  - text: "edited a, created b"
`

// rewindProject writes a.txt and c.txt (b.txt does not exist) and returns the three paths.
func rewindProject(t *testing.T, dir string) (a, b, c string) {
	t.Helper()
	a, b, c = filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt"), filepath.Join(dir, "c.txt")
	for p, text := range map[string]string{a: "original\n", c: "c1\n"} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return a, b, c
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// Two prompts' Write and Edit calls are checkpointed; a new InteractiveSession resuming
// the session lists them and /rewind code restores a.txt and removes b.txt.
func TestRewindCodeAfterResume(t *testing.T) {
	dir := t.TempDir()
	a, b, c := rewindProject(t, dir)
	s := newTestSession(t, scriptProvider(t, fmt.Sprintf(rewindScript, a, b, c)), Options{Cwd: dir, PermissionMode: "acceptEdits"})
	first := submitAndWait(t, s, "rewrite a")
	second := submitAndWait(t, s, "edit a and create b")
	if got := readFile(t, a) + readFile(t, b) + readFile(t, c); got != "v2\nnew\nc2\n" {
		t.Fatalf("after the prompts a+b = %q", got)
	}
	if err := s.Close(context.Background(), "other"); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(dir, ".robota", "checkpoints", s.ID(), first, checkpoint.ManifestFile)
	if _, err := os.Stat(manifest); err != nil {
		t.Fatalf("checkpoint not persisted: %v", err)
	}

	var n atomic.Int64 // ids unlike the first session's
	opts := Options{Cwd: dir, Resume: s.ID(), Home: t.TempDir(), Env: envOf(nil), LLM: scriptProvider(t, commandScript),
		NewID: func() string { return fmt.Sprintf("r-%03d", n.Add(1)) }}
	r, err := New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close(context.Background(), "other") })
	if r.ID() != s.ID() {
		t.Fatalf("resumed %s, want %s", r.ID(), s.ID())
	}
	ctx := context.Background()
	list, err := r.ExecuteCommand(ctx, "rewind", "list")
	if err != nil || !list.Success {
		t.Fatalf("/rewind list = %+v, %v", list, err)
	}
	cps := list.Data["checkpoints"].([]map[string]any)
	var ids []string
	for _, cp := range cps {
		ids = append(ids, cp["id"].(string))
	}
	if !slices.Equal(ids, []string{second, first}) {
		t.Fatalf("checkpoints %v, want newest first %v", ids, []string{second, first})
	}
	// The three calls of one batch may start in any order.
	if f := slices.Sorted(slices.Values(cps[0]["files"].([]string))); !slices.Equal(f, []string{a, b, c}) {
		t.Errorf("second checkpoint files %v", f)
	}
	if f := cps[1]["files"].([]string); !slices.Equal(f, []string{a}) {
		t.Errorf("first checkpoint files %v", f)
	}
	if !strings.Contains(list.Message, "Bash are not tracked") || !strings.Contains(list.Message, "rewrite a") {
		t.Errorf("list message %q", list.Message)
	}

	res, err := r.ExecuteCommand(ctx, "rewind", "code "+first)
	if err != nil || !res.Success {
		t.Fatalf("/rewind code = %+v, %v", res, err)
	}
	if got := readFile(t, a) + readFile(t, c); got != "original\nc1\n" {
		t.Errorf("a.txt + c.txt = %q, want the original content", got)
	}
	if _, err := os.Stat(b); !os.IsNotExist(err) {
		t.Errorf("b.txt still exists: %v", err)
	}
	if !slices.Equal(res.Data["restored"].([]string), []string{a, c}) || !slices.Equal(res.Data["removed"].([]string), []string{b}) ||
		!strings.Contains(res.Message, "Bash are not tracked") {
		t.Errorf("rewind result %+v", res)
	}
	// The checkpoint rewound to stays (the conversation can still be cut back to it);
	// the later one is gone.
	if after, _ := r.EditCheckpoints(); len(after) != 1 || after[0].ID != first {
		t.Errorf("checkpoints after rewinding to the first: %+v, want only %s", after, first)
	}
	if res, _ := r.ExecuteCommand(ctx, "rewind", "code "+second); res.Success || !strings.Contains(res.Message, "No checkpoint") {
		t.Errorf("rewind to a removed checkpoint = %+v", res)
	}
}

// A second checkpoint rewinds to the content the first prompt left; "restore ID" is the
// spec's name of "code ID".
func TestRewindCodeToLaterCheckpoint(t *testing.T) {
	for _, verb := range []string{"code", "restore"} {
		t.Run(verb, func(t *testing.T) { testRewindCodeToLater(t, verb) })
	}
}

func testRewindCodeToLater(t *testing.T, verb string) {
	dir := t.TempDir()
	a, b, c := rewindProject(t, dir)
	s := newTestSession(t, scriptProvider(t, fmt.Sprintf(rewindScript, a, b, c)), Options{Cwd: dir, PermissionMode: "acceptEdits"})
	first := submitAndWait(t, s, "rewrite a")
	second := submitAndWait(t, s, "edit a and create b")
	if res, _ := s.ExecuteCommand(context.Background(), "rewind", verb+" "+second); !res.Success {
		t.Fatalf("rewind %s = %+v", verb, res)
	}
	if msgs := len(s.Session().Messages()); msgs < 4 {
		t.Errorf("/rewind %s dropped the conversation (%d messages): it restores files only", verb, msgs)
	}
	if got := readFile(t, a) + readFile(t, c); got != "v1\nc1\n" {
		t.Errorf("a.txt + c.txt = %q, want the first prompt's v1 and c's original", got)
	}
	if _, err := os.Stat(b); !os.IsNotExist(err) {
		t.Errorf("b.txt still exists: %v", err)
	}
	list, _ := s.EditCheckpoints()
	if len(list) != 2 || list[0].ID != second || list[1].ID != first {
		t.Errorf("checkpoints after rewind %+v, want %s and %s", list, second, first)
	}
}

// /rewind code is refused while a prompt runs and changes nothing.
func TestRewindRefusedWhileRunning(t *testing.T) {
	s := newTestSession(t, scriptProvider(t, commandScript), Options{})
	sub := s.Subscribe()
	sent, _ := s.Submit("slow")
	until(t, sub, func(ev Event) bool { return ev.Type == EventTextDelta && ev.PromptID == sent.PromptID })
	res, err := s.ExecuteCommand(context.Background(), "rewind", "code "+sent.PromptID)
	if err != nil || res.Success || !strings.Contains(res.Message, "not available while a prompt is running") {
		t.Errorf("/rewind code while running = %+v, %v", res, err)
	}
	if list, _ := s.EditCheckpoints(); len(list) != 1 {
		t.Errorf("checkpoints %+v, want the running prompt's", list)
	}
	s.Abort()
	until(t, sub, ends(sent.PromptID))
}

// /rewind ID restores the files and the conversation to before that prompt; the
// truncated conversation is what a resumed session continues.
func TestRewindConversation(t *testing.T) {
	dir := t.TempDir()
	a, b, c := rewindProject(t, dir)
	s := newTestSession(t, scriptProvider(t, fmt.Sprintf(rewindScript, a, b, c)), Options{Cwd: dir, PermissionMode: "acceptEdits"})
	submitAndWait(t, s, "rewrite a")
	kept := len(s.Session().Messages())
	second := submitAndWait(t, s, "edit a and create b")
	if len(s.Session().Messages()) <= kept {
		t.Fatalf("the second prompt added no messages")
	}
	for _, args := range []string{"code", "conversation", "code x y"} {
		if res, _ := s.ExecuteCommand(context.Background(), "rewind", args); res.Success || !strings.Contains(res.Message, "Usage: /rewind") {
			t.Errorf("/rewind %s = %+v", args, res)
		}
	}
	res, err := s.ExecuteCommand(context.Background(), "rewind", second)
	if err != nil || !res.Success || res.Data["messages"] != kept {
		t.Fatalf("/rewind %s = %+v, %v", second, res, err)
	}
	msgs := s.Session().Messages()
	if len(msgs) != kept || msgs[len(msgs)-1].Text() != "wrote a" {
		t.Fatalf("conversation after rewind: %d messages, last %q; want %d ending with the first answer", len(msgs), msgs[len(msgs)-1].Text(), kept)
	}
	if got := readFile(t, a); got != "v1\n" {
		t.Errorf("a.txt = %q", got)
	}
	if err := s.Close(context.Background(), "other"); err != nil {
		t.Fatal(err)
	}
	r, err := New(context.Background(), Options{Cwd: dir, Resume: s.ID(), Home: t.TempDir(), Env: envOf(nil), LLM: scriptProvider(t, commandScript)})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(context.Background(), "other")
	if got := r.Session().Messages(); len(got) != kept || got[len(got)-1].Text() != "wrote a" {
		t.Errorf("resumed conversation has %d messages, want the %d kept", len(got), kept)
	}
}

// A file changed by someone else since the session last wrote it is kept and reported,
// not overwritten; a path that became a link is restored by replacing the link, never
// by writing or deleting through it.
func TestRewindKeepsOthersChangesAndReplacesLinks(t *testing.T) {
	dir := t.TempDir()
	a, b, c := rewindProject(t, dir)
	s := newTestSession(t, scriptProvider(t, fmt.Sprintf(rewindScript, a, b, c)), Options{Cwd: dir, PermissionMode: "acceptEdits"})
	first := submitAndWait(t, s, "rewrite a")
	submitAndWait(t, s, "edit a and create b")
	// Someone edits c.txt after the session wrote it; b.txt becomes a link to a file
	// outside the project; a.txt stays as the session left it.
	if err := os.WriteFile(c, []byte("someone's work\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "outside.txt")
	if err := os.WriteFile(outside, []byte("outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(b); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, b); err != nil {
		t.Fatal(err)
	}
	res, _ := s.ExecuteCommand(context.Background(), "rewind", "code "+first)
	if !res.Success {
		t.Fatalf("rewind = %+v", res)
	}
	if got := readFile(t, c); got != "someone's work\n" {
		t.Errorf("c.txt = %q: a change made since the session wrote it was overwritten", got)
	}
	if !strings.Contains(res.Message, "kept     "+c) {
		t.Errorf("the rewind does not report the kept file:\n%s", res.Message)
	}
	if got := readFile(t, outside); got != "outside\n" {
		t.Errorf("the file behind the link was changed: %q", got)
	}
	if _, err := os.Lstat(b); !os.IsNotExist(err) {
		t.Errorf("b.txt (created by the session, now a link) is still there: %v", err)
	}
	if got := readFile(t, a); got != "original\n" {
		t.Errorf("a.txt = %q, want the original", got)
	}
}

// A file the session edited that became a link is restored as a file of its own: the
// link is replaced, what it points to is left alone.
func TestRewindReplacesAFileThatBecameALink(t *testing.T) {
	dir := t.TempDir()
	a, b, c := rewindProject(t, dir)
	s := newTestSession(t, scriptProvider(t, fmt.Sprintf(rewindScript, a, b, c)), Options{Cwd: dir, PermissionMode: "acceptEdits"})
	first := submitAndWait(t, s, "rewrite a")
	target := filepath.Join(t.TempDir(), "target.txt")
	if err := os.WriteFile(target, []byte("v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(a); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, a); err != nil {
		t.Fatal(err)
	}
	if res, _ := s.ExecuteCommand(context.Background(), "rewind", "code "+first); !res.Success {
		t.Fatalf("rewind = %+v", res)
	}
	if st, err := os.Lstat(a); err != nil || !st.Mode().IsRegular() || readFile(t, a) != "original\n" {
		t.Errorf("a.txt: %v %v %q, want a regular file with the original", st, err, readFile(t, a))
	}
	if got := readFile(t, target); got != "v1\n" {
		t.Errorf("the link's target was written through: %q", got)
	}
}

package memory

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var fixedNow = func() time.Time { return time.Date(2026, 11, 28, 1, 2, 3, 0, time.UTC) }

func newStore(t *testing.T) (*Store, string) {
	t.Helper()
	dir := t.TempDir()
	return NewStore(dir, fixedNow), dir
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAppendWritesTopicAndIndexAndDeduplicates(t *testing.T) {
	s, dir := newStore(t)
	res, err := s.Append("Build.md", TypeProject, "use  make\nfor everything")
	if err != nil {
		t.Fatal(err)
	}
	if res.Topic != "build" || res.Path != ".robota/memory/topics/build.md" || res.Deduplicated {
		t.Fatalf("result %+v", res)
	}
	if _, err := s.Append("build", TypeFeedback, "run go vet before commits"); err != nil {
		t.Fatal(err)
	}
	// Same entry, other case, spacing and a trailing period: not written again.
	dup, err := s.Append("build", TypeUser, "Use make for everything.")
	if err != nil || !dup.Deduplicated || dup.Entry.Text != "use make for everything" {
		t.Fatalf("dup %+v, %v", dup, err)
	}
	wantTopic := "# build\n\n- [project] use make for everything _(2026-11-28)_\n- [feedback] run go vet before commits _(2026-11-28)_\n"
	if got := read(t, filepath.Join(dir, ".robota/memory/topics/build.md")); got != wantTopic {
		t.Fatalf("topic file:\n%s\nwant:\n%s", got, wantTopic)
	}
	wantIndex := "- build (project): use make for everything\n- build (feedback): run go vet before commits\n"
	if got := read(t, filepath.Join(dir, ".robota/memory/MEMORY.md")); got != wantIndex {
		t.Fatalf("index:\n%s\nwant:\n%s", got, wantIndex)
	}
	topic, err := s.Show("BUILD")
	if err != nil || topic.Entries != 2 || topic.List[1].Type != TypeFeedback || topic.Content != wantTopic {
		t.Fatalf("show %+v, %v", topic, err)
	}
	topics, err := s.Topics()
	if err != nil || len(topics) != 1 || topics[0].Name != "build" || topics[0].Entries != 2 {
		t.Fatalf("topics %+v, %v", topics, err)
	}
}

func TestAppendKeepsHandEditedText(t *testing.T) {
	s, dir := newStore(t)
	p := filepath.Join(dir, ".robota/memory/topics/notes.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	hand := "# Notes\nSome prose.\n* deploy with ./deploy.sh" // no final newline
	if err := os.WriteFile(p, []byte(hand), 0o644); err != nil {
		t.Fatal(err)
	}
	if res, err := s.Append("notes", TypeProject, "Deploy with ./deploy.sh"); err != nil || !res.Deduplicated {
		t.Fatalf("hand-written entry not seen: %+v %v", res, err)
	}
	if _, err := s.Append("notes", TypeReference, "runbook at docs/ops.md"); err != nil {
		t.Fatal(err)
	}
	if got := read(t, p); got != hand+"\n- [reference] runbook at docs/ops.md _(2026-11-28)_\n" {
		t.Fatalf("topic file: %q", got)
	}
}

func TestTopicNamesStayInTheTopicsDirectory(t *testing.T) {
	s, dir := newStore(t)
	for _, bad := range []string{"", "../escape", "a/b", `a\b`, "..", ".hidden", "x..y", "/abs", "sp ace", strings.Repeat("a", 65), "tópico"} {
		if _, err := s.Append(bad, TypeProject, "text"); !errors.Is(err, ErrInvalidTopic) {
			t.Errorf("Append(%q): %v, want ErrInvalidTopic", bad, err)
		}
		if _, err := s.Show(bad); !errors.Is(err, ErrInvalidTopic) {
			t.Errorf("Show(%q): %v, want ErrInvalidTopic", bad, err)
		}
	}
	// A topics directory that is a symlink out of the project is not followed.
	outside := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".robota/memory"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, ".robota/memory/topics")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append("ok", TypeProject, "text"); err == nil {
		t.Fatal("append through a symlink leading outside the project succeeded")
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("wrote outside the project: %v", entries)
	}
}

func TestAppendRejectsBadInput(t *testing.T) {
	s, _ := newStore(t)
	if _, err := s.Append("t", "secret", "x"); !errors.Is(err, ErrInvalidType) {
		t.Fatalf("type: %v", err)
	}
	if _, err := s.Append("t", TypeUser, " \n "); !errors.Is(err, ErrEmptyText) {
		t.Fatalf("empty: %v", err)
	}
	if _, err := s.Append("t", TypeUser, strings.Repeat("a", MaxTextBytes+1)); err == nil {
		t.Fatal("oversized text accepted")
	}
	if _, err := s.Show("nothing"); !errors.Is(err, ErrUnknownTopic) {
		t.Fatalf("show unknown: %v", err)
	}
}

func TestIndexLineIsBounded(t *testing.T) {
	s, _ := newStore(t)
	long := strings.Repeat("é", 200)
	if _, err := s.Append("long", TypeProject, long); err != nil {
		t.Fatal(err)
	}
	idx, _ := s.Index()
	if len(idx) > maxIndexText+40 || !strings.HasSuffix(idx, "…\n") {
		t.Fatalf("index line %d bytes: %q", len(idx), idx)
	}
}

func TestPendingQueueApproveReject(t *testing.T) {
	s, dir := newStore(t)
	for _, id := range []string{"c1", "c2"} {
		if err := s.Queue(Candidate{ID: id, Topic: "team", Type: TypeUser, Text: "ask ana@example.com for access " + id, Reason: "email"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Queue(Candidate{ID: "c1", Topic: "team", Type: TypeUser, Text: "again"}); err == nil {
		t.Fatal("queued an existing id")
	}
	if err := s.Queue(Candidate{ID: "../x", Topic: "team", Type: TypeUser, Text: "t"}); !errors.Is(err, ErrUnknownCandidate) {
		t.Fatalf("bad id: %v", err)
	}
	list, err := s.Pending()
	if err != nil || len(list) != 2 || list[0].ID != "c1" {
		t.Fatalf("pending %+v %v", list, err)
	}
	c, res, err := s.Approve("c1")
	if err != nil || c.ID != "c1" || res.Topic != "team" || res.Deduplicated {
		t.Fatalf("approve %+v %+v %v", c, res, err)
	}
	if !strings.Contains(read(t, filepath.Join(dir, ".robota/memory/topics/team.md")), "ask ana@example.com for access c1") {
		t.Fatal("approved memory not stored")
	}
	if _, err := s.Reject("c2"); err != nil {
		t.Fatal(err)
	}
	if list, _ := s.Pending(); len(list) != 0 {
		t.Fatalf("left %+v", list)
	}
	if _, err := s.Reject("c2"); !errors.Is(err, ErrUnknownCandidate) {
		t.Fatalf("reject twice: %v", err)
	}
	if _, _, err := s.Approve("../../etc/passwd"); !errors.Is(err, ErrUnknownCandidate) {
		t.Fatalf("approve traversal: %v", err)
	}
}

func TestApproveRefusesACandidateEditedIntoASecret(t *testing.T) {
	s, dir := newStore(t)
	if err := s.Queue(Candidate{ID: "c1", Topic: "t", Type: TypeUser, Text: "ok"}); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, ".robota/memory/pending/c1.json")
	if err := os.WriteFile(p, []byte(`{"topic":"t","type":"user","text":"password is hunter22"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Approve("c1"); !errors.Is(err, ErrRefused) {
		t.Fatalf("approve: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".robota/memory/topics/t.md")); !os.IsNotExist(err) {
		t.Fatal("refused candidate written")
	}
}

package sessionlog_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
)

func openBackground(t *testing.T, dir, id string) *sessionlog.FileLogger {
	t.Helper()
	l, err := sessionlog.Open(dir, id, sessionlog.Options{Now: tickingClock(), Background: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return l
}

// Written by the background writer, the log is the one the caller's goroutine writes:
// the same lines in the same order, stamped when Log was called, all there once Close
// returns.
func TestBackgroundWritesTheGoldenLog(t *testing.T) {
	l := openBackground(t, t.TempDir(), "golden-session")
	for _, e := range sessionEvents() {
		l.Log(e.ev, e.data)
	}
	for _, ev := range agentRun() {
		l.Log(string(ev.Type), ev)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(l.Path())
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("testdata", "every_event.golden.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("background log differs from the golden log:\n%s", got)
	}
}

// A key streamed in pieces and a key in an event's data never reach a file when the
// events are written in the background: not while the stream is held (Sync mid-stream),
// not at its end.
func TestBackgroundRedactsSecrets(t *testing.T) {
	dir := t.TempDir()
	l := openBackground(t, dir, "s1")
	key := "sk-ant-api03-" + strings.Repeat("abcdefghij", 4)
	l.Log(sessionlog.EventPreRun, sessionlog.PreRunData{Input: "use " + key})
	text := "here is the key " + key + " and more words after it "
	for i := 0; i < len(text); i += 3 {
		l.Log(sessionlog.EventTextDelta, sessionlog.TextDeltaData{Delta: text[i:min(i+3, len(text))], ExecutionID: "e1"})
		if i == 24 {
			if err := l.Sync(); err != nil {
				t.Fatal(err)
			}
			assertNoSecretUnder(t, dir, key, key[:20])
		}
	}
	l.Log(sessionlog.EventAssistant, sessionlog.AssistantData{Content: text})
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if files := assertNoSecretUnder(t, dir, key, key[:20]); files == 0 {
		t.Fatal("no file written")
	}
	c := readAll(t, l.Path())
	if n := len(c.Entries); n < 3 || c.Entries[0].Event != sessionlog.EventPreRun || c.Entries[n-1].Event != sessionlog.EventAssistant {
		t.Fatalf("%d entries, first %s", n, c.Entries[0].Event)
	}
}

package sessionlog_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
)

// A log written before the compact level (testdata/before-29: robota at main 299b0f8, a
// three-round Read session resumed for one more turn, with its journal) still validates
// and replays alone, with or without the journal: the conversation is the journal's,
// and so is the timeline.
func TestReplaysLogWrittenBeforeCompactLevel(t *testing.T) {
	replayGolden(t, filepath.Join("testdata", "before-29"), func(segs []store.Segment) []sessionlog.ReplayOptions {
		return []sessionlog.ReplayOptions{{}, {Journal: segs}}
	}, false)
}

// replayGolden reads the golden session under root (ID, logs, sessions), validates its
// log and replays it with each of optsFor's options: the messages are the record's, the
// timeline as long as the record's, 5 requests (4 rounds, then the resumed turn) and,
// with lastWhole, the last request the whole conversation before its answer.
func replayGolden(t *testing.T, root string, optsFor func([]store.Segment) []sessionlog.ReplayOptions, lastWhole bool) {
	t.Helper()
	idb, err := os.ReadFile(filepath.Join(root, "ID"))
	if err != nil {
		t.Fatal(err)
	}
	id := strings.TrimSpace(string(idb))
	logs := filepath.Join(root, "logs")
	c, err := sessionlog.ReadLogFile(sessionlog.LogPath(logs, id))
	if err != nil || len(c.Skipped) > 0 {
		t.Fatalf("read: %v, skipped %v", err, c.Skipped)
	}
	if v := sessionlog.ValidateSessionReplayLogEntries(c.Entries, sessionlog.DirPayloads(logs)); !v.OK {
		t.Errorf("issues %+v", v.Issues)
	}
	st := store.NewFileStore(filepath.Join(root, "sessions"), store.Options{})
	rec, err := st.Load(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	segs, err := st.Segments(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	timeline, err := rec.Timeline()
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range optsFor(segs) {
		r, err := sessionlog.ReplaySessionLog(c.Entries, sessionlog.DirPayloads(logs), opts)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(r.Messages)
		want, _ := json.Marshal(rec.Messages)
		if string(got) != string(want) {
			t.Errorf("journal %v: replayed\n%s\nrecord\n%s", opts.Journal != nil, got, want)
		}
		if len(r.Timeline) != len(timeline) {
			t.Errorf("journal %v: timeline of %d entries, the record's has %d", opts.Journal != nil, len(r.Timeline), len(timeline))
		}
		if len(r.Requests) != 5 {
			t.Errorf("%d requests, want 5 (4 rounds, then the resumed turn)", len(r.Requests))
		}
		// The resumed turn's request is the whole conversation before its answer.
		if lastWhole && len(r.Requests) > 0 {
			if last := r.Requests[len(r.Requests)-1]; len(last.Messages) != len(rec.Messages)-1 {
				t.Errorf("last request of %d messages, the record has %d", len(last.Messages), len(rec.Messages))
			}
		}
	}
}

// Native request bodies logged before a reopen stopped reading the log back (testdata/
// native-reopen-before.jsonl: the first body of each later process is a delta of the
// earlier process's last) are rebuilt by EachNativeRequest and validate.
func TestNativeBodiesWrittenBeforeReplay(t *testing.T) {
	c, err := sessionlog.ReadLogFile(filepath.Join("testdata", "native-reopen-before.jsonl"))
	if err != nil || len(c.Skipped) > 0 {
		t.Fatalf("read: %v, skipped %v", err, c.Skipped)
	}
	var rounds []int
	err = sessionlog.EachNativeRequest(c.Entries, nil, func(exec string, round int, body json.RawMessage) error {
		var b struct {
			Messages []json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal(body, &b); err != nil {
			return err
		}
		rounds = append(rounds, len(b.Messages))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := rounds, []int{1, 3, 3, 60, 61, 62}; !slices.Equal(got, want) {
		t.Errorf("bodies with %v messages, want %v", got, want)
	}
	if v := sessionlog.ValidateSessionReplayLogEntries(c.Entries, nil); len(v.Issues) != 0 {
		t.Errorf("issues %+v", v.Issues)
	}
}

// Logs written before the log moved onto the JSON v2 library (testdata/before-30: robota
// at main 087d8c7, with the encoding/json-exact encoder: a session of three Read rounds,
// one of a file past the inline threshold and one failing, answers with HTML characters,
// U+2028 and non-ASCII text, resumed for one more turn; at the full and at the compact
// level, each with its journal) still validate and replay: the conversation and the
// timeline are the journal's, every request is rebuilt.
func TestReplaysLogWrittenBeforeJSONv2(t *testing.T) {
	for _, tc := range []struct {
		level string
		opts  func(segs []store.Segment) []sessionlog.ReplayOptions
	}{
		// A full log holds the conversation itself: it replays alone too.
		{"full", func(segs []store.Segment) []sessionlog.ReplayOptions {
			return []sessionlog.ReplayOptions{{}, {Journal: segs}}
		}},
		{"compact", func(segs []store.Segment) []sessionlog.ReplayOptions {
			return []sessionlog.ReplayOptions{{Journal: segs}}
		}},
	} {
		t.Run(tc.level, func(t *testing.T) {
			replayGolden(t, filepath.Join("testdata", "before-30", tc.level), tc.opts, true)
		})
	}
}

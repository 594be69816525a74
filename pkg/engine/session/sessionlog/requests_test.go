package sessionlog_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
)

func entry(seq int, event, data string) sessionlog.Entry {
	return sessionlog.Entry{SchemaVersion: 1, Sequence: int64(seq), Line: seq, Timestamp: epoch, SessionID: "s",
		Event: sessionlog.EventType(event), Data: json.RawMessage(data)}
}

const (
	msgU1 = `{"id":"u1","role":"user","state":"complete","content":[{"type":"text","text":"one"}]}`
	msgA1 = `{"id":"a1","role":"assistant","state":"complete","content":[{"type":"text","text":"two"}]}`
	msgU2 = `{"id":"u2","role":"user","state":"complete","content":[{"type":"text","text":"three"}]}`
	msgX  = `{"id":"x","role":"user","state":"complete","content":[{"type":"text","text":"extra"}]}`
)

// Logs written before deltas carry every request's whole list under request.messages:
// they replay as they are.
func TestReplayOldFormatRequests(t *testing.T) {
	entries := []sessionlog.Entry{
		entry(1, "provider_request", `{"executionId":"e","round":1,"request":{"provider":"p","model":"m","messages":[`+msgU1+`],"tools":[{"name":"Read"}]}}`),
		entry(2, "provider_request", `{"executionId":"e","round":2,"request":{"provider":"p","model":"m","messages":[`+msgU1+`,`+msgA1+`,`+msgU2+`],"tools":null}}`),
	}
	rec, err := sessionlog.ReplaySessionLogEntries(entries, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Requests) != 2 || messageIDs(rec.Requests[0].Messages) != "u1" || messageIDs(rec.Requests[1].Messages) != "u1,a1,u2" {
		t.Fatalf("requests %+v", rec.Requests)
	}
	if len(rec.Requests[0].Tools) != 1 || rec.Requests[1].Tools != nil {
		t.Errorf("tools %+v / %+v", rec.Requests[0].Tools, rec.Requests[1].Tools)
	}
	if v := sessionlog.ValidateSessionReplayLogEntries(entries, nil); len(v.Issues) != 6 { // only the 3 missing responses × 2
		t.Errorf("issues %+v", v.Issues)
	}
}

// A request may extend a base whose list went on differently (a forced summary's extra
// message): the shared prefix is kept and the base's own list is not disturbed. A whole
// line, a delta and a delta of a delta mix.
func TestReplayDeltaBranches(t *testing.T) {
	entries := []sessionlog.Entry{
		entry(1, "provider_request", `{"executionId":"e","round":1,"request":{"messageCount":1,"newMessages":[`+msgU1+`],"tools":[{"name":"Read"}]}}`),
		entry(2, "provider_request", `{"executionId":"e","round":2,"request":{"base":{"executionId":"e","round":1,"messages":1},"messageCount":3,"newMessages":[`+msgA1+`,`+msgX+`],"tools":null}}`),
		entry(3, "provider_request", `{"executionId":"f","round":1,"request":{"base":{"executionId":"e","round":2,"messages":2,"tools":true},"messageCount":3,"newMessages":[`+msgU2+`]}}`),
		entry(4, "provider_request", `{"executionId":"f","round":2,"request":{"base":{"executionId":"e","round":1,"messages":1,"tools":true},"messageCount":2,"newMessages":[`+msgU2+`]}}`),
	}
	rec, err := sessionlog.ReplaySessionLogEntries(entries, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rec.Requests {
		got = append(got, messageIDs(r.Messages)+"/"+itoa(len(r.Tools)))
	}
	if want := []string{"u1/1", "u1,a1,x/0", "u1,a1,u2/0", "u1,u2/1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("requests %v, want %v", got, want)
	}
	if v := sessionlog.ValidateSessionReplayLogEntries(entries, nil); len(v.Issues) != 12 { // responses only
		t.Errorf("issues %+v", v.Issues)
	}
}

// A delta whose base is not in the log, or that does not add up, fails replay and is
// reported by validation.
func TestReplayAndValidateBrokenDeltas(t *testing.T) {
	first := entry(1, "provider_request", `{"executionId":"e","round":1,"request":{"messageCount":2,"newMessages":[`+msgU1+`,`+msgA1+`]}}`)
	tests := []struct {
		name string
		line string
		code sessionlog.IssueCode
	}{
		{"base not in the log", `{"executionId":"e","round":2,"request":{"base":{"executionId":"gone","round":1,"messages":1},"messageCount":2,"newMessages":[` + msgU2 + `]}}`,
			sessionlog.IssueRequestBaseMissing},
		{"shares more than the base has", `{"executionId":"e","round":2,"request":{"base":{"executionId":"e","round":1,"messages":3},"messageCount":4,"newMessages":[` + msgU2 + `]}}`,
			sessionlog.IssueEntryMalformed},
		{"count does not add up", `{"executionId":"e","round":2,"request":{"base":{"executionId":"e","round":1,"messages":2},"messageCount":5,"newMessages":[` + msgU2 + `]}}`,
			sessionlog.IssueEntryMalformed},
		{"neither form", `{"executionId":"e","round":2,"request":{"provider":"p"}}`, sessionlog.IssueEntryMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			entries := []sessionlog.Entry{first, entry(2, "provider_request", tt.line)}
			if _, err := sessionlog.ReplaySessionLogEntries(entries, nil); !errors.Is(err, sessionlog.ErrReplay) {
				t.Errorf("replay = %v, want ErrReplay", err)
			}
			var codes []sessionlog.IssueCode
			for _, is := range sessionlog.ValidateSessionReplayLogEntries(entries, nil).Issues {
				if is.Sequence == 2 && is.Code != sessionlog.IssueNativeRawPayloadMissing &&
					is.Code != sessionlog.IssueResponseRawMissing && is.Code != sessionlog.IssueResponseNormalizedMissing {
					codes = append(codes, is.Code)
				}
			}
			if !reflect.DeepEqual(codes, []sessionlog.IssueCode{tt.code}) {
				t.Errorf("issues %v, want %s", codes, tt.code)
			}
		})
	}
}

// pre_run names the length of the history before the call; validation checks it against
// the history the log rebuilds.
func TestValidatePreRunHistoryLength(t *testing.T) {
	reset := entry(1, "history_mutation", `{"mutation":{"kind":"reset"},"messages":[`+msgU1+`,`+msgA1+`]}`)
	for n, want := range map[int]int{2: 0, 3: 1} {
		entries := []sessionlog.Entry{reset, entry(2, "pre_run", `{"input":"hi","historyLength":`+itoa(n)+`}`)}
		if v := sessionlog.ValidateSessionReplayLogEntries(entries, nil); len(v.Issues) != want ||
			want == 1 && v.Issues[0].Code != sessionlog.IssueHistoryIndexMismatch {
			t.Errorf("historyLength %d: issues %+v", n, v.Issues)
		}
	}
}

// A secret in a message that is new in a request (so on its delta line, inline or moved to
// a payload file) is redacted as it is written; the rest of the text stays, and replay
// rebuilds the request with the redacted message.
func TestDeltaRequestRedactsNewMessages(t *testing.T) {
	const key = "sk-ant-api03-NEWSECRET0123456789abcdefghijklmnop"
	for _, threshold := range []int{0, 64} {
		dir := t.TempDir()
		l := openLogger(t, dir, "s1", threshold)
		clean := factory.User("hello")
		leaky := factory.User("here is my key " + key + " keep it safe")
		msgs := []llm.Message{clean}
		mustLog(t, l, sessionlog.EventProviderRequest, agent.Event{Type: agent.EventProviderRequest, ExecutionID: "e", Round: 1,
			Request: &agent.ProviderRequestData{Provider: "p", Model: "m", Messages: msgs}})
		mustLog(t, l, sessionlog.EventProviderRequest, agent.Event{Type: agent.EventProviderRequest, ExecutionID: "e", Round: 2,
			Request: &agent.ProviderRequestData{Provider: "p", Model: "m", Messages: append(msgs, leaky),
				Base: &agent.RequestBase{ExecutionID: "e", Round: 1, Messages: 1}}})
		_ = l.Close()
		assertNoSecretUnder(t, dir, key)
		c := readAll(t, l.Path())
		if n := countUnder(t, dir, `"hello"`); n != 1 {
			t.Errorf("threshold %d: the shared message was written %d times", threshold, n)
		}
		rec, err := sessionlog.ReplaySessionLogEntries(c.Entries, sessionlog.DirPayloads(dir))
		if err != nil {
			t.Fatal(err)
		}
		if len(rec.Requests) != 2 || len(rec.Requests[1].Messages) != 2 ||
			rec.Requests[1].Messages[1].Text() != "here is my key [REDACTED] keep it safe" {
			t.Errorf("threshold %d: replayed %+v", threshold, rec.Requests)
		}
	}
}

// countUnder counts the occurrences of s in the files under root.
func countUnder(t *testing.T, root, s string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		n += strings.Count(string(b), s)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

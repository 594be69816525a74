package session_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
)

// loggedSession runs prompts in a session that logs to dir/{cfg.SessionID}.jsonl through
// the real FileLogger, shuts it down and returns the saved record.
func loggedSession(t *testing.T, dir string, st *memStore, cfg session.Config, prompts ...string) store.Record {
	t.Helper()
	lg, err := sessionlog.Open(dir, cfg.SessionID, sessionlog.Options{Now: fixedClock})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Logger, cfg.Store = lg, st
	s := newSession(t, cfg)
	for _, p := range prompts {
		mustRun(t, s, p)
	}
	if err := s.Shutdown(context.Background(), "other"); err != nil {
		t.Fatal(err)
	}
	if err := lg.Close(); err != nil {
		t.Fatal(err)
	}
	return st.load(t, s.ID())
}

// replayLog rebuilds the conversation from the log of id alone or, given the journal's
// conversations (a compact log), from the log and the journal.
func replayLog(t *testing.T, dir, id string, journal ...store.Segment) []llm.Message {
	t.Helper()
	c, err := sessionlog.ReadLogFile(sessionlog.LogPath(dir, id))
	if err != nil || len(c.Skipped) > 0 {
		t.Fatalf("read log %s: %v, skipped %v", id, err, c.Skipped)
	}
	rec, err := sessionlog.ReplaySessionLog(c.Entries, sessionlog.DirPayloads(dir), sessionlog.ReplayOptions{Journal: journal})
	if err != nil {
		t.Fatalf("replay %s: %v", id, err)
	}
	return rec.Messages
}

// wantSameTimeline checks that the timeline replayed from the log of id (with the
// journal's conversations, for a compact log) is the record's: the same entries in order.
func wantSameTimeline(t *testing.T, what, dir, id string, rec store.Record, journal ...store.Segment) {
	t.Helper()
	c, err := sessionlog.ReadLogFile(sessionlog.LogPath(dir, id))
	if err != nil {
		t.Fatal(err)
	}
	replayed, err := sessionlog.ReplaySessionLog(c.Entries, sessionlog.DirPayloads(dir), sessionlog.ReplayOptions{Journal: journal})
	if err != nil {
		t.Fatalf("%s: replay: %v", what, err)
	}
	want, err := rec.Timeline()
	if err != nil {
		t.Fatal(err)
	}
	var got, exp []string
	for _, e := range replayed.Timeline {
		got = append(got, e.Category+":"+e.Type+":"+e.ID)
	}
	for _, raw := range want {
		var e sessionlog.TimelineEntry
		if err := json.Unmarshal(raw, &e); err != nil {
			t.Fatal(err)
		}
		exp = append(exp, e.Category+":"+e.Type+":"+e.ID)
	}
	if strings.Join(got, "\n") != strings.Join(exp, "\n") {
		t.Fatalf("%s: replayed timeline differs from the record's\nreplayed %v\nrecord   %v", what, got, exp)
	}
}

func wantSameMessages(t *testing.T, what string, got, want []llm.Message) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Fatalf("%s: replayed messages differ from the record's\nreplayed %s\nrecord   %s", what, g, w)
	}
}

// Replaying a session log reproduces the record's messages for a fresh session (its system
// message included), a resumed one (appended to the same log) and a fork (a new log that
// starts from the copied conversation). A resumed session is built with the system prompt
// of its own time: it replaces the record's older one, in the history the model sees, in
// the record and in the log.
func TestSessionLog_ReplayReproducesRecordAcrossResumeAndFork(t *testing.T) {
	dir := t.TempDir()
	st := &memStore{}
	script := `
turns:
  - when: {lastUserContains: "read"}
    toolCalls: [{id: call_0, name: Read, input: {file_path: a.go}}]
  - when: {lastToolResultContains: "ran Read"}
    text: "Read it."
  - when: {lastUserContains: "again"}
    text: "Again."
`
	base := session.Config{Tools: []llm.Tool{&funcTool{name: "Read"}}, Evaluator: allowAll()}

	fresh := base
	fresh.Provider, fresh.SessionID, fresh.SystemMessage = newProvider(t, script), "s1", "SYSTEM v1"
	rec := loggedSession(t, dir, st, fresh, "read a.go")
	if got := roles(rec.Messages); got != "system,user,assistant,tool,assistant" {
		t.Fatalf("fresh record roles %s", got)
	}
	wantSameMessages(t, "fresh", replayLog(t, dir, "s1"), rec.Messages)

	p := newProvider(t, script)
	resumed := base
	resumed.Provider, resumed.SessionID, resumed.SystemMessage, resumed.Resume = p, "s1", "SYSTEM v2", &rec
	rec2 := loggedSession(t, dir, st, resumed, "again")
	if rec2.Messages[0].Role != llm.RoleSystem || rec2.Messages[0].Text() != "SYSTEM v2" || rec2.SystemPrompt != "SYSTEM v2" {
		t.Fatalf("resumed record starts with %q (system prompt %q), want SYSTEM v2", rec2.Messages[0].Text(), rec2.SystemPrompt)
	}
	if got := roles(rec2.Messages); got != "system,user,assistant,tool,assistant,user,assistant" {
		t.Fatalf("resumed record roles %s", got)
	}
	for _, m := range p.requests()[0].Messages {
		if m.Role == llm.RoleSystem && m.Text() != "SYSTEM v2" {
			t.Fatalf("the resumed model call carries the old system prompt %q", m.Text())
		}
	}
	wantSameMessages(t, "resumed", replayLog(t, dir, "s1"), rec2.Messages)

	forked := base
	forked.Provider, forked.SessionID, forked.SystemMessage, forked.Resume = newProvider(t, script), "s2", "SYSTEM v2", &rec2
	rec3 := loggedSession(t, dir, st, forked, "again")
	if got := roles(rec3.Messages); got != "system,user,assistant,tool,assistant,user,assistant,user,assistant" {
		t.Fatalf("forked record roles %s", got)
	}
	wantSameMessages(t, "forked", replayLog(t, dir, "s2"), rec3.Messages)
}

// canonicalJSON encodes v through a generic JSON tree, so key order and spacing inside raw
// JSON members (tool inputs) do not count.
func canonicalJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var tree any
	if err := json.Unmarshal(b, &tree); err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(tree)
	return string(b)
}

// replayRequests validates the log of id and rebuilds every provider request from it alone
// (or with the journal's conversations, see replayLog).
func replayRequests(t *testing.T, dir, id string, journal ...store.Segment) []sessionlog.ReplayedRequest {
	t.Helper()
	c, err := sessionlog.ReadLogFile(sessionlog.LogPath(dir, id))
	if err != nil || len(c.Skipped) > 0 {
		t.Fatalf("read log %s: %v, skipped %v", id, err, c.Skipped)
	}
	// An aborted call has no response events; every other issue is a broken log.
	for _, is := range sessionlog.ValidateSessionReplayLogEntries(c.Entries, sessionlog.DirPayloads(dir)).Issues {
		switch is.Code {
		case sessionlog.IssueNativeRawPayloadMissing, sessionlog.IssueResponseRawMissing, sessionlog.IssueResponseNormalizedMissing:
		default:
			t.Fatalf("log %s: %+v", id, is)
		}
	}
	rec, err := sessionlog.ReplaySessionLog(c.Entries, sessionlog.DirPayloads(dir), sessionlog.ReplayOptions{Journal: journal})
	if err != nil {
		t.Fatalf("replay %s: %v", id, err)
	}
	return rec.Requests
}

// wantSameRequests checks that the requests rebuilt from a log are, in order, the chat and
// final-summary requests the providers received (compaction calls are not logged).
func wantSameRequests(t *testing.T, what string, got []sessionlog.ReplayedRequest, providers ...*recordingProvider) {
	t.Helper()
	var want []llm.ChatRequest
	for _, p := range providers {
		for _, r := range p.requests() {
			if r.Purpose != llm.PurposeCompaction {
				want = append(want, r)
			}
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d requests rebuilt from the log, the providers received %d", what, len(got), len(want))
	}
	for i := range want {
		if g, w := canonicalJSON(t, got[i].Messages), canonicalJSON(t, want[i].Messages); g != w {
			t.Fatalf("%s: request %d (execution %s round %d) differs from what the provider received\nrebuilt  %s\nreceived %s",
				what, i, got[i].ExecutionID, got[i].Round, g, w)
		}
		if g, w := canonicalJSON(t, nonNilTools(got[i].Tools)), canonicalJSON(t, nonNilTools(want[i].Tools)); g != w || got[i].Purpose != want[i].Purpose {
			t.Fatalf("%s: request %d tools %s purpose %q, the provider received %s purpose %q", what, i, g, got[i].Purpose, w, want[i].Purpose)
		}
	}
}

func nonNilTools(t []llm.ToolSchema) []llm.ToolSchema {
	if t == nil {
		return []llm.ToolSchema{}
	}
	return t
}

// A long session (hundreds of provider requests: tool rounds, forced final summaries at
// the round cap, an aborted call, manual compactions, a resume into the same log and a
// fork into a new one) logs each request as a delta of the one before, and replaying the
// log rebuilds every request exactly as the provider received it.
func TestSessionLog_LongSessionReplaysEveryRequest(t *testing.T) {
	for _, level := range []sessionlog.Level{sessionlog.LevelFull, sessionlog.LevelCompact} {
		t.Run(string(level), func(t *testing.T) { longSessionReplaysEveryRequest(t, level) })
	}
}

// longSessionReplaysEveryRequest is the test at one log level: a compact log is replayed
// with the journal's conversations.
func longSessionReplaysEveryRequest(t *testing.T, level sessionlog.Level) {
	dir := t.TempDir()
	st := &memStore{}
	journal := func(id string) []store.Segment {
		if level != sessionlog.LevelCompact {
			return nil
		}
		return st.segments(t, id)
	}
	script := `
turns:
  - when: {compaction: true}
    text: "SUMMARY: the user had files read."
    usage: {inputTokens: 10, outputTokens: 5}
    repeat: true
  - when: {purpose: final_summary}
    text: "Summary of the reads."
    usage: {inputTokens: 10, outputTokens: 5}
    repeat: true
  - when: {lastUserContains: "hang"}
    text: "Partial"
    hang: true
    repeat: true
  - when: {lastUserContains: "quick"}
    text: "Quick answer."
    usage: {inputTokens: 10, outputTokens: 5}
    repeat: true
  - toolCalls: [{name: Read, input: {file_path: a.go}}]
    text: "Reading."
    usage: {inputTokens: 10, outputTokens: 5}
    repeat: true
`
	base := session.Config{Tools: []llm.Tool{&funcTool{name: "Read"}}, Evaluator: allowAll(), MaxTurns: 4,
		AutoCompactThreshold: session.AutoCompactDisabled}

	// runs drives a logged session: read runs (4 tool rounds and a forced summary each),
	// quick runs, a compaction every 10 runs and one aborted call.
	runs := func(cfg session.Config, n int) (*recordingProvider, store.Record) {
		lg, err := sessionlog.Open(dir, cfg.SessionID, sessionlog.Options{Now: fixedClock, Level: level})
		if err != nil {
			t.Fatal(err)
		}
		p := newProvider(t, script)
		cfg.Provider, cfg.Logger, cfg.Store = p, lg, st
		s := newSession(t, cfg)
		for i := 1; i <= n; i++ {
			switch {
			case i%10 == 0:
				if err := s.Compact(context.Background(), ""); err != nil {
					t.Fatalf("compact: %v", err)
				}
			case i == 7:
				ctx, cancel := context.WithCancel(context.Background())
				p.started = make(chan llm.ChatRequest, 1)
				go func() { <-p.started; cancel() }()
				if _, err := s.Run(ctx, "hang here"); err == nil {
					t.Fatal("the hanging run was not aborted")
				}
				p.started = nil
			case i%3 == 0:
				mustRun(t, s, fmt.Sprintf("quick %d", i))
			default:
				mustRun(t, s, fmt.Sprintf("read %d", i))
				// A timeline event entry (the interactive layer's tool-start, tool-end ...).
				note, _ := json.Marshal(map[string]int{"run": i})
				if err := s.AddHistoryEntry(session.HistoryEntry{Category: session.CategoryEvent, Type: "note", Data: note}); err != nil {
					t.Fatal(err)
				}
			}
		}
		if err := s.Shutdown(context.Background(), "other"); err != nil {
			t.Fatal(err)
		}
		if err := lg.Close(); err != nil {
			t.Fatal(err)
		}
		return p, st.load(t, s.ID())
	}

	fresh := base
	fresh.SessionID = "long"
	p1, rec := runs(fresh, 35)
	if n := len(p1.requests()); n < 100 {
		t.Fatalf("only %d provider calls", n)
	}
	wantSameRequests(t, "fresh", replayRequests(t, dir, "long", journal("long")...), p1)
	wantSameMessages(t, "fresh", replayLog(t, dir, "long", journal("long")...), rec.Messages)

	// Resumed into the same log three times (the last with a new system prompt): each
	// resume continues the log's history instead of writing it again, its first request
	// is written against that history, and the log still rebuilds every request.
	providers := []*recordingProvider{p1}
	rec2 := rec
	for i, n := range []int{25, 8, 5} {
		resumed := base
		resumed.SessionID, resumed.Resume = "long", &rec2
		if i == 2 {
			resumed.SystemMessage = "SYSTEM v2"
		}
		var p *recordingProvider
		p, rec2 = runs(resumed, n)
		providers = append(providers, p)
		what := fmt.Sprintf("resume %d", i+1)
		wantSameRequests(t, what, replayRequests(t, dir, "long", journal("long")...), providers...)
		wantSameMessages(t, what, replayLog(t, dir, "long", journal("long")...), rec2.Messages)
		wantSameTimeline(t, what, dir, "long", rec2, journal("long")...)
	}
	c, err := sessionlog.ReadLogFile(sessionlog.LogPath(dir, "long"))
	if err != nil {
		t.Fatal(err)
	}
	continued, fromHistory := 0, 0
	for _, e := range c.Entries {
		var d struct {
			Continues *sessionlog.HistoryContinuation `json:"continues"`
			Replaced  []json.RawMessage               `json:"replaced"`
			Request   *struct {
				Base *struct {
					History bool `json:"history"`
				} `json:"base"`
			} `json:"request"`
		}
		if err := json.Unmarshal(e.Data, &d); err != nil {
			t.Fatal(err)
		}
		if level == sessionlog.LevelCompact {
			switch e.Event {
			case sessionlog.EventProviderRequest, sessionlog.EventProviderResponseNormalized, sessionlog.EventSessionInit,
				sessionlog.EventPreRun, sessionlog.EventAssistant, sessionlog.EventContextCompact, sessionlog.EventSessionShutdown,
				sessionlog.EventError:
			case sessionlog.EventHistoryMutation:
				if !strings.Contains(string(e.Data), `"kind":"reset"`) {
					t.Errorf("a compact log holds an append: %s", e.Data)
				}
			default:
				t.Errorf("a compact log holds a %s line", e.Event)
			}
		}
		if d.Continues != nil {
			continued++
			if continued == 3 && len(d.Replaced) != 1 {
				t.Errorf("the resume with a new system prompt replaced %d messages, want 1", len(d.Replaced))
			}
		}
		if d.Request != nil && d.Request.Base != nil && d.Request.Base.History {
			fromHistory++
		}
	}
	if continued != 3 {
		t.Errorf("%d resets continue the log's history, want 3 (one per resume)", continued)
	}
	// Every session's first request, and the first after each compaction.
	if fromHistory < 4 {
		t.Errorf("%d requests are written against the history, want at least 4", fromHistory)
	}

	forked := base
	forked.SessionID, forked.Resume = "long-fork", &rec2
	p3, rec3 := runs(forked, 12)
	wantSameRequests(t, "forked", replayRequests(t, dir, "long-fork", journal("long-fork")...), p3)
	wantSameMessages(t, "forked", replayLog(t, dir, "long-fork", journal("long-fork")...), rec3.Messages)
	wantSameTimeline(t, "forked", dir, "long-fork", rec3, journal("long-fork")...)
}

// A run of many small tool rounds writes a log that grows with the conversation, not with
// its square: the whole log stays within a small multiple of the final conversation, and
// the last rounds cost no more than the first. (Before delta lines every request's whole
// message list was written again: 300 rounds wrote ~170× the conversation.)
func TestSessionLog_BytesGrowWithTheConversation(t *testing.T) {
	const rounds = 300
	dir := t.TempDir()
	lg, err := sessionlog.Open(dir, "rounds", sessionlog.Options{Now: fixedClock})
	if err != nil {
		t.Fatal(err)
	}
	p := newProvider(t, `
turns:
  - when: {purpose: final_summary}
    text: "Done."
    usage: {inputTokens: 10, outputTokens: 5}
    repeat: true
  - text: "Next file."
    toolCalls: [{name: Read, input: {file_path: a.txt}}]
    usage: {inputTokens: 10, outputTokens: 5}
    repeat: true
`)
	st := &memStore{}
	s := newSession(t, session.Config{SessionID: "rounds", Provider: p, Logger: lg, Store: st, Evaluator: allowAll(),
		Tools: []llm.Tool{&funcTool{name: "Read"}}, MaxTurns: rounds, AutoCompactThreshold: session.AutoCompactDisabled})
	mustRun(t, s, "read a.txt many times")
	if err := s.Shutdown(context.Background(), "other"); err != nil {
		t.Fatal(err)
	}
	if err := lg.Close(); err != nil {
		t.Fatal(err)
	}
	conv, _ := json.Marshal(st.load(t, "rounds").Messages)
	var total int64
	perRound := map[int]int{}
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		total += info.Size()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := sessionlog.ReadLogFile(sessionlog.LogPath(dir, "rounds"))
	if err != nil {
		t.Fatal(err)
	}
	// A round's bytes: its lines, and the payload files they were first to refer to.
	refs := regexp.MustCompile(`"sha256":"([0-9a-f]{64})","byteLength":([0-9]+)`)
	seen := map[string]bool{}
	for _, e := range c.Entries {
		var id struct {
			Round int `json:"round"`
		}
		b, _ := json.Marshal(e)
		if json.Unmarshal(e.Data, &id) != nil || id.Round == 0 {
			continue
		}
		perRound[id.Round] += len(b) + 1
		for _, m := range refs.FindAllStringSubmatch(string(e.Data), -1) {
			if !seen[m[1]] {
				seen[m[1]] = true
				n, _ := strconv.Atoi(m[2])
				perRound[id.Round] += n
			}
		}
	}
	first, last := 0, 0
	for r := 1; r <= 100; r++ {
		first += perRound[r]
		last += perRound[rounds-100+r]
	}
	ratio := float64(total) / float64(len(conv))
	t.Logf("%d rounds: log %d bytes, final conversation %d bytes (%.1f×); rounds 1-100 %d bytes, rounds %d-%d %d bytes",
		rounds, total, len(conv), ratio, first, rounds-99, rounds, last)
	if ratio > 16 {
		t.Errorf("the log is %.1f× the final conversation, want ≤ 16×", ratio)
	}
	if float64(last) > 1.1*float64(first) {
		t.Errorf("the last 100 rounds wrote %d bytes, the first 100 %d: the cost of a round grows with the history", last, first)
	}
}

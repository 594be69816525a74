package interactive_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	. "github.com/robota-sdk/robota-go/pkg/engine/interactive"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session"
)

// answerAll takes the events of prompt id, answering each permission request with the
// next of answers, and returns the requests and every event taken.
func answerAll(t *testing.T, s *InteractiveSession, sub *Subscription, id string, answers ...session.PermissionAnswer) ([]PermissionRequest, []Event) {
	t.Helper()
	var asked []PermissionRequest
	var events []Event
	for {
		ev := next(t, sub)
		events = append(events, ev)
		if ev.Type == EventPermissionRequest {
			asked = append(asked, *ev.Permission)
			if len(answers) == 0 {
				t.Fatalf("unexpected permission request for %s %s", ev.Permission.ToolName, ev.Permission.Input)
			}
			a := answers[0]
			answers = answers[1:]
			if err := s.RespondPermission(ev.Permission.RequestID, a.Approval, a.Message); err != nil {
				t.Fatalf("respond: %v", err)
			}
		}
		if ends(id)(ev) {
			return asked, events
		}
	}
}

// "Allow for the session" stores the rule for the command prefix: a later call it covers
// is not asked, a different command is.
func TestPermissionAllowForSession(t *testing.T) {
	p := scriptProvider(t, `
turns:
  - toolCalls: [{id: c1, name: Bash, input: {command: "echo one"}}]
  - toolCalls: [{id: c2, name: Bash, input: {command: "echo one two"}}]
  - toolCalls: [{id: c3, name: Bash, input: {command: "echo three"}}]
  - text: "done"
`)
	s := newTestSession(t, p, Options{})
	sub := s.Subscribe()
	sent, _ := s.Submit("go")
	asked, events := answerAll(t, s, sub, sent.PromptID,
		session.PermissionAnswer{Approval: session.ApprovalAllowSession},
		session.PermissionAnswer{Approval: session.ApprovalAllow})
	checkSeq(t, events)
	if len(asked) != 2 {
		t.Fatalf("asked %d times, want 2 (echo one, echo three): %+v", len(asked), asked)
	}
	if asked[0].SessionRule != "Bash(echo one:*)" || !strings.Contains(string(asked[1].Input), "echo three") {
		t.Fatalf("requests %+v", asked)
	}
	if asked[0].RequestID == "" || asked[0].ToolName != "Bash" || asked[0].Reason == "" || asked[0].ToolUseID != "c1" {
		t.Fatalf("request lacks its fields: %+v", asked[0])
	}
	if got := s.Session().SessionRules(); !slices.Equal(got, []string{"Bash(echo one:*)"}) {
		t.Fatalf("session rules %v", got)
	}
	var ok, others []string
	for _, e := range events {
		if e.Type == EventToolEnd && e.Tool.Result == "success" {
			ok = append(ok, e.Tool.FirstArg)
		} else if e.Type == EventToolEnd {
			others = append(others, fmt.Sprintf("%s: %s %s %s %.200s", e.Tool.FirstArg, e.Tool.Result, e.Tool.ErrorCode, e.Tool.Reason, e.Tool.ToolResultData))
		}
	}
	if !slices.Equal(ok, []string{"echo one", "echo one two", "echo three"}) {
		t.Fatalf("tools that ran: %v; the others: %q", ok, others)
	}
	// Answering again, or an id never issued.
	if err := s.RespondPermission(asked[0].RequestID, session.ApprovalAllow, ""); !errors.Is(err, ErrPermissionAnswered) {
		t.Fatalf("second answer: %v, want ErrPermissionAnswered", err)
	}
	if err := s.RespondPermission("nope", session.ApprovalAllow, ""); !errors.Is(err, ErrUnknownPermissionRequest) {
		t.Fatalf("unknown id: %v, want ErrUnknownPermissionRequest", err)
	}
	if err := s.RespondPermission(asked[0].RequestID, "sure", ""); !errors.Is(err, ErrInvalidApproval) {
		t.Fatalf("bad answer: %v, want ErrInvalidApproval", err)
	}
}

// Allow once runs the call and remembers nothing; deny's message reaches the model, the
// tool never runs and the call is a permission denial.
func TestPermissionAllowOnceAndDenyWithMessage(t *testing.T) {
	p := scriptProvider(t, `
turns:
  - toolCalls: [{id: c1, name: Probe, input: {n: 1}}]
  - toolCalls: [{id: c2, name: Probe, input: {n: 2}}]
  - when: {lastToolResultContains: "use the other tool"}
    text: "understood"
  - text: "the message was lost"
`)
	probe := &probeTool{}
	s := newTestSession(t, p, Options{Tools: []llm.Tool{probe}})
	sub := s.Subscribe()
	sent, _ := s.Submit("go")
	asked, events := answerAll(t, s, sub, sent.PromptID,
		session.PermissionAnswer{Approval: session.ApprovalAllow},
		session.PermissionAnswer{Approval: session.ApprovalDeny, Message: "use the other tool"})
	end := events[len(events)-1]
	if len(asked) != 2 || end.Type != EventComplete || end.Result.Response != "understood" {
		t.Fatalf("asked %d, ended %s %+v", len(asked), end.Type, end.Result)
	}
	if probe.count() != 1 {
		t.Fatalf("probe ran %d times, want once (allowed once, then denied)", probe.count())
	}
	if d := s.Session().PermissionDenials(); len(d) != 1 || d[0].ToolUseID != "c2" {
		t.Fatalf("denials %+v", d)
	}
	if r := s.Session().SessionRules(); len(r) != 0 {
		t.Fatalf("allow once stored rules %v", r)
	}
	var resolved []string
	for _, e := range events {
		if e.Type == EventPermissionResolved {
			resolved = append(resolved, string(e.Resolution.Approval)+"/"+e.Resolution.Outcome)
		}
	}
	if !slices.Equal(resolved, []string{"allow/answered", "deny/answered"}) {
		t.Fatalf("resolutions %v", resolved)
	}
}

// Headless: nobody can answer, so a call that needs approval is denied at once, with no
// permission_request, and listed in the denials.
func TestPermissionNoPromptDenies(t *testing.T) {
	p := scriptProvider(t, `
turns:
  - toolCalls: [{id: c1, name: Probe, input: {}}]
  - text: "ok"
`)
	probe := &probeTool{}
	s := newTestSession(t, p, Options{Tools: []llm.Tool{probe}, Interactive: InteractiveOptions{NoPrompt: true}})
	sub := s.Subscribe()
	sent, _ := s.Submit("go")
	_, events := answerAll(t, s, sub, sent.PromptID)
	if probe.count() != 0 || len(s.Session().PermissionDenials()) != 1 || events[len(events)-1].Type != EventComplete {
		t.Fatalf("probe ran %d, denials %v", probe.count(), s.Session().PermissionDenials())
	}
}

// No answer within the timeout: the call is denied with a reason the model sees, and a
// late answer is refused. synctest's clock makes the five minutes pass at once.
func TestPermissionTimeoutDenies(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := scriptProvider(t, `
turns:
  - toolCalls: [{id: c1, name: Probe, input: {}}]
  - when: {lastToolResultContains: "no answer to the permission request within 5m0s"}
    text: "timed out"
  - text: "the reason was lost"
`)
		probe := &probeTool{}
		s, err := NewFromConfig(context.Background(), session.Config{Provider: p, Tools: []llm.Tool{probe},
			Evaluator: askAll{}, NewID: safeIDs()}, InteractiveOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close(context.Background(), "other")
		sub := s.Subscribe()
		sent, _ := s.Submit("go")
		var req *PermissionRequest
		start := time.Now()
		var events []Event
		for {
			ev, err := sub.Next(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			events = append(events, ev)
			if ev.Type == EventPermissionRequest {
				req = ev.Permission
			}
			if ends(sent.PromptID)(ev) {
				break
			}
		}
		if req == nil || !req.Deadline.Equal(start.Add(DefaultPermissionTimeout)) {
			t.Fatalf("request %+v, want a deadline 5m after %v", req, start)
		}
		if waited := time.Since(start); waited != DefaultPermissionTimeout {
			t.Fatalf("denied after %v", waited)
		}
		if end := events[len(events)-1]; end.Type != EventComplete || end.Result.Response != "timed out" || probe.count() != 0 {
			t.Fatalf("ended %s %+v, probe ran %d", end.Type, end.Result, probe.count())
		}
		if err := s.RespondPermission(req.RequestID, session.ApprovalAllow, ""); !errors.Is(err, ErrPermissionAnswered) {
			t.Fatalf("late answer: %v", err)
		}
	})
}

// Abort while a permission request waits: the tool never runs, the prompt ends
// interrupted, and the request is resolved as aborted.
func TestPermissionAbortWhileWaiting(t *testing.T) {
	p := scriptProvider(t, `
turns:
  - toolCalls: [{id: c1, name: Probe, input: {}}]
  - text: "should not be reached"
`)
	probe := &probeTool{}
	s := newTestSession(t, p, Options{Tools: []llm.Tool{probe}})
	sub := s.Subscribe()
	sent, _ := s.Submit("go")
	req := until(t, sub, isType(EventPermissionRequest))
	id := req[len(req)-1].Permission.RequestID
	if pending := s.PendingPermissions(); len(pending) != 1 || pending[0].RequestID != id || pending[0].ToolName != "Probe" {
		t.Fatalf("pending requests %+v", pending)
	}
	s.Abort()
	events := until(t, sub, ends(sent.PromptID))
	if end := events[len(events)-1]; end.Type != EventInterrupted {
		t.Fatalf("ended %s", end.Type)
	}
	resolved := slices.IndexFunc(events, func(e Event) bool {
		return e.Type == EventPermissionResolved && e.Resolution.RequestID == id && e.Resolution.Outcome == "aborted"
	})
	if resolved < 0 {
		t.Fatalf("no aborted resolution before the interrupted event: %q", types(events))
	}
	if probe.count() != 0 {
		t.Fatal("the tool ran after an abort while waiting for permission")
	}
	if err := s.RespondPermission(id, session.ApprovalAllow, ""); !errors.Is(err, ErrPermissionAnswered) {
		t.Fatalf("answer after abort: %v", err)
	}
	if pending := s.PendingPermissions(); len(pending) != 0 {
		t.Fatalf("still pending after the abort: %+v", pending)
	}
	if probe.count() != 0 {
		t.Fatal("a late allow ran the tool")
	}
}

// askAll asks about every call (the mode's ask: it may be lifted for the session).
type askAll struct{}

func (askAll) Evaluate(_ context.Context, req session.PermissionRequest, _ session.PermissionMode) session.PermissionDecision {
	return session.PermissionDecision{Behavior: session.BehaviorAsk, Reason: "test asks", SessionRule: req.ToolName}
}

// A client that subscribes while a permission request waits sees that request first and
// can answer it; one that subscribes after the answer does not see it.
func TestPermissionLateSubscriberSeesWaitingRequest(t *testing.T) {
	p := scriptProvider(t, `
turns:
  - toolCalls: [{id: c1, name: Bash, input: {command: "echo late"}}]
  - text: "done"
`)
	s := newTestSession(t, p, Options{})
	first := s.Subscribe()
	sent, _ := s.Submit("go")
	var asked Event
	for asked.Type != EventPermissionRequest {
		asked = next(t, first)
	}
	late := s.Subscribe()
	got := next(t, late)
	if got.Type != EventPermissionRequest || got.Seq != asked.Seq || got.Permission.RequestID != asked.Permission.RequestID {
		t.Fatalf("late subscriber's first event = %s #%d, want the waiting request #%d", got.Type, got.Seq, asked.Seq)
	}
	if err := s.RespondPermission(got.Permission.RequestID, session.ApprovalAllow, ""); err != nil {
		t.Fatal(err)
	}
	for ev := next(t, late); !ends(sent.PromptID)(ev); ev = next(t, late) {
		if ev.Seq <= got.Seq {
			t.Fatalf("event #%d after #%d: out of order", ev.Seq, got.Seq)
		}
	}
	after := s.Subscribe()
	defer after.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if ev, err := after.Next(ctx); err == nil {
		t.Fatalf("a subscriber after the answer got %s #%d, want nothing", ev.Type, ev.Seq)
	}
}

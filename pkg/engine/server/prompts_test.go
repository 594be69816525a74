package server

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
	"github.com/robota-sdk/robota-go/pkg/engine/manager"
)

// projectFor writes the script script(dir) into a new project dir.
func projectFor(t *testing.T, script func(dir string) string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "script.yaml"), []byte(script(dir)), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Every answer travels over the wire: allow once runs the Write, allow for the session
// stores the command-prefix rule (the next call it covers is not asked), a denial's
// message reaches the model.
func TestPermissionAnsweredOverTheWire(t *testing.T) {
	e := startEngine(t, "", nil)
	dir := projectFor(t, func(dir string) string {
		return fmt.Sprintf(`
turns:
  - toolCalls: [{id: w1, name: Write, input: {file_path: %q, content: "A"}}]
  - toolCalls: [{id: b1, name: Bash, input: {command: "echo one"}}]
  - toolCalls: [{id: b2, name: Bash, input: {command: "echo one two"}}]
  - toolCalls: [{id: b3, name: Bash, input: {command: "echo three"}}]
  - when: {lastToolResultContains: "use printf instead"}
    text: "done"
`, filepath.Join(dir, "a.txt"))
	})
	id := e.create(dir, nil).GetSessionId()
	ctx := testCtx(t)
	answers := []struct {
		a   robotav1.PermissionAnswer
		msg string
	}{
		{robotav1.PermissionAnswer_PERMISSION_ANSWER_ALLOW, ""},
		{robotav1.PermissionAnswer_PERMISSION_ANSWER_ALLOW_FOR_SESSION, ""},
		{robotav1.PermissionAnswer_PERMISSION_ANSWER_DENY, "use printf instead"},
	}
	var asked []*robotav1.PermissionRequestEvent
	stream, err := e.client.Submit(ctx, &robotav1.SubmitRequest{SessionId: id, Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	got := drainSubmit(stream, func(ev *robotav1.SessionEvent) {
		p := ev.GetPermissionRequest()
		if p == nil {
			return
		}
		if len(asked) == len(answers) {
			t.Errorf("unexpected permission request %v", p)
			return
		}
		a := answers[len(asked)]
		asked = append(asked, p)
		if _, err := e.client.RespondPermission(ctx, &robotav1.RespondPermissionRequest{
			SessionId: id, RequestId: p.GetRequestId(), Answer: a.a, Message: a.msg}); err != nil {
			t.Errorf("RespondPermission: %v", err)
		}
	})
	if got.err != nil {
		t.Fatal(got.err)
	}
	if len(asked) != 3 || asked[0].GetToolName() != "Write" || asked[1].GetSessionRule() != "Bash(echo one:*)" ||
		!strings.Contains(asked[2].GetInputJson(), "echo three") || asked[0].GetToolCallId() != "w1" || asked[0].GetDeadline() == nil {
		t.Fatalf("asked %v", asked)
	}
	outcomes := map[string]robotav1.ToolOutcome{}
	resolved := 0
	for _, ev := range got.events {
		if te := ev.GetToolEnd(); te != nil {
			outcomes[te.GetTool().GetToolCallId()] = te.GetTool().GetOutcome()
		}
		if r := ev.GetPermissionResolved(); r != nil && r.GetOutcome() == robotav1.PermissionOutcome_PERMISSION_OUTCOME_ANSWERED {
			resolved++
		}
	}
	want := map[string]robotav1.ToolOutcome{"w1": robotav1.ToolOutcome_TOOL_OUTCOME_SUCCESS, "b1": robotav1.ToolOutcome_TOOL_OUTCOME_SUCCESS,
		"b2": robotav1.ToolOutcome_TOOL_OUTCOME_SUCCESS, "b3": robotav1.ToolOutcome_TOOL_OUTCOME_DENIED}
	if fmt.Sprint(outcomes) != fmt.Sprint(want) || resolved != 3 {
		t.Fatalf("tool outcomes %v (want %v), %d resolved", outcomes, want, resolved)
	}
	if got.last().GetComplete().GetResult().GetResponse() != "done" {
		t.Fatalf("last event %v: the denial message did not reach the model", got.last())
	}
	if b, err := os.ReadFile(filepath.Join(dir, "a.txt")); err != nil || string(b) != "A" {
		t.Fatalf("written file %q, %v", b, err)
	}

	_, err = e.client.RespondPermission(ctx, &robotav1.RespondPermissionRequest{SessionId: id, RequestId: asked[0].GetRequestId(),
		Answer: robotav1.PermissionAnswer_PERMISSION_ANSWER_ALLOW})
	wantCode(t, "second answer", err, codes.FailedPrecondition, "already resolved")
	_, err = e.client.RespondPermission(ctx, &robotav1.RespondPermissionRequest{SessionId: id, RequestId: "nope",
		Answer: robotav1.PermissionAnswer_PERMISSION_ANSWER_ALLOW})
	wantCode(t, "unknown request", err, codes.NotFound, "nope")
	_, err = e.client.RespondPermission(ctx, &robotav1.RespondPermissionRequest{SessionId: id, RequestId: "nope"})
	wantCode(t, "unspecified answer", err, codes.InvalidArgument, "answer")
}

// A prompt waiting for permission keeps the session busy: the next one is queued and
// runs when it ends, a third is RESOURCE_EXHAUSTED.
func TestSubmitWhileBusyIsQueuedAndAFullQueueIsRefused(t *testing.T) {
	e := startEngine(t, "", nil)
	dir := project(t, `
turns:
  - when: {lastUserContains: "first"}
    toolCalls: [{id: b1, name: Bash, input: {command: "echo hi"}}]
  - when: {lastUserContains: "first"}
    text: "first done"
  - when: {lastUserContains: "second"}
    text: "second done"
`)
	id := e.create(dir, nil).GetSessionId()
	ctx := testCtx(t)
	first, err := e.client.Submit(ctx, &robotav1.SubmitRequest{SessionId: id, Prompt: "first"})
	if err != nil {
		t.Fatal(err)
	}
	// The first prompt now waits for an answer.
	reqID := recvUntil(t, first, func(ev *robotav1.SessionEvent) bool { return ev.GetPermissionRequest() != nil }).
		GetPermissionRequest().GetRequestId()
	second, err := e.client.Submit(ctx, &robotav1.SubmitRequest{SessionId: id, Prompt: "second"})
	if err != nil {
		t.Fatal(err)
	}
	acc, err := second.Recv()
	if err != nil || !acc.GetAccepted().GetQueued() {
		t.Fatalf("second prompt %v, %v: want accepted, queued", acc, err)
	}
	third := e.submit(id, "third")
	wantCode(t, "third prompt", third.err, codes.ResourceExhausted, "already queued")
	gs, err := e.client.GetSession(ctx, &robotav1.GetSessionRequest{SessionId: id})
	if err != nil || !gs.GetSession().GetRunning() {
		t.Fatalf("GetSession while busy %v, %v", gs, err)
	}

	if _, err := e.client.RespondPermission(ctx, &robotav1.RespondPermissionRequest{SessionId: id, RequestId: reqID,
		Answer: robotav1.PermissionAnswer_PERMISSION_ANSWER_ALLOW}); err != nil {
		t.Fatal(err)
	}
	if r := drainSubmit(first, nil); r.err != nil || r.last().GetComplete().GetResult().GetResponse() != "first done" {
		t.Fatalf("first prompt ended with %v, %v", r.last(), r.err)
	}
	if r := drainSubmit(second, nil); r.err != nil || r.last().GetComplete().GetResult().GetResponse() != "second done" {
		t.Fatalf("queued prompt ended with %v, %v", r.last(), r.err)
	}
}

// Abort ends the running prompt interrupted (partial text kept) and drops the queued
// one; CancelQueue drops only the queued one.
func TestAbortAndCancelQueue(t *testing.T) {
	e := startEngine(t, "", nil)
	dir := project(t, `
turns:
  - when: {lastUserContains: "slow"}
    text: "working"
    hang: true
`)
	id := e.create(dir, nil).GetSessionId()
	ctx := testCtx(t)
	running, err := e.client.Submit(ctx, &robotav1.SubmitRequest{SessionId: id, Prompt: "slow"})
	if err != nil {
		t.Fatal(err)
	}
	// Running once its text streams.
	recvUntil(t, running, func(ev *robotav1.SessionEvent) bool { return ev.GetTextDelta() != nil })
	queued, err := e.client.Submit(ctx, &robotav1.SubmitRequest{SessionId: id, Prompt: "later"})
	if err != nil {
		t.Fatal(err)
	}
	if acc, err := queued.Recv(); err != nil || !acc.GetAccepted().GetQueued() {
		t.Fatalf("second prompt %v, %v: want queued", acc, err)
	}
	cq, err := e.client.CancelQueue(ctx, &robotav1.CancelQueueRequest{SessionId: id})
	if err != nil || !cq.GetHadQueued() {
		t.Fatalf("CancelQueue %v, %v", cq, err)
	}
	r := drainSubmit(queued, nil)
	if r.err != nil || r.last().GetInterrupted().GetResult().GetReason() != "removed from the queue" {
		t.Fatalf("cancelled prompt: %v, %v", r.last(), r.err)
	}
	if cq, _ := e.client.CancelQueue(ctx, &robotav1.CancelQueueRequest{SessionId: id}); cq.GetHadQueued() {
		t.Fatal("CancelQueue with nothing queued reported a prompt")
	}
	ab, err := e.client.Abort(ctx, &robotav1.AbortRequest{SessionId: id})
	if err != nil || !ab.GetWasRunning() {
		t.Fatalf("Abort %v, %v", ab, err)
	}
	r = drainSubmit(running, nil)
	intr := r.last().GetInterrupted().GetResult()
	if r.err != nil || intr == nil || !intr.GetInterrupted() || intr.GetReason() != "aborted" || !strings.Contains(intr.GetResponse(), "working") {
		t.Fatalf("aborted prompt ended with %v, %v", r.last(), r.err)
	}
	if ab, _ := e.client.Abort(ctx, &robotav1.AbortRequest{SessionId: id}); ab.GetWasRunning() {
		t.Fatal("Abort of an idle session reported a running prompt")
	}
	wantCode(t, "empty prompt", e.submit(id, "  ").err, codes.InvalidArgument, "prompt")
}

// Two clients watch one session; the second joins late and replays from a sequence
// number the first saw, then both see the same events.
func TestWatchFromTwoClientsWithReplay(t *testing.T) {
	e := startEngine(t, "", nil)
	dir := project(t, `
turns:
  - text: "Reading the script first."
    toolCalls: [{id: r1, name: Read, input: {file_path: script.yaml}}]
  - text: "It is a script of two turns."
`)
	id := e.create(dir, nil).GetSessionId()
	ctx := testCtx(t)
	w1, err := e.client.Watch(ctx, &robotav1.WatchRequest{SessionId: id})
	if err != nil {
		t.Fatal(err)
	}
	// Watch's headers come once it has subscribed: no event of the prompt is missed.
	if _, err := w1.Header(); err != nil {
		t.Fatal(err)
	}
	sub := e.submit(id, "read it")
	if sub.err != nil {
		t.Fatal(sub.err)
	}
	watch := func(s robotav1.EngineService_WatchClient) []*robotav1.SessionEvent {
		var evs []*robotav1.SessionEvent
		for {
			resp, err := s.Recv()
			if err != nil {
				t.Fatalf("watch: %v", err)
			}
			evs = append(evs, resp.GetEvent())
			if resp.GetEvent().GetComplete() != nil {
				return evs
			}
		}
	}
	first := watch(w1)
	var k uint64
	for _, ev := range first {
		if ev.GetToolStart() != nil {
			k = ev.GetSequence()
		}
	}
	if k == 0 {
		t.Fatalf("first watcher saw no tool_start: %v", kinds(first))
	}
	w2, err := e.client.Watch(ctx, &robotav1.WatchRequest{SessionId: id, AfterSequence: k})
	if err != nil {
		t.Fatal(err)
	}
	second := watch(w2)
	summary := func(evs []*robotav1.SessionEvent) string {
		var b strings.Builder
		for _, ev := range evs {
			if ev.GetSequence() <= k {
				continue
			}
			if d := ev.GetTextDelta(); d != nil {
				b.WriteString(d.GetText())
				continue
			}
			// A reader that falls behind gets a run of context updates as the latest one
			// (coalesced, with its sequence): runs compare as one, without sequences.
			if ev.GetContextUpdate() != nil {
				if !strings.HasSuffix(b.String(), "|context_update|") {
					b.WriteString("|context_update|")
				}
				continue
			}
			fmt.Fprintf(&b, "|%d:%s|", ev.GetSequence(), kind(ev))
		}
		return b.String()
	}
	if second[0].GetSequence() <= k {
		t.Fatalf("replay started at %d, want after %d", second[0].GetSequence(), k)
	}
	if a, b := summary(first), summary(second); a != b || !strings.Contains(a, "tool_end") || !strings.Contains(a, "It is a script") {
		t.Fatalf("after %d the watchers differ:\n first %s\nsecond %s", k, a, b)
	}
	// A sequence number the session has not reached cannot be replayed.
	w3, err := e.client.Watch(ctx, &robotav1.WatchRequest{SessionId: id, AfterSequence: 1 << 40})
	if err == nil {
		_, err = w3.Recv()
	}
	wantCode(t, "watch ahead", err, codes.OutOfRange, "ahead")
	// Closing the session ends the watch streams OK.
	w4, err := e.client.Watch(ctx, &robotav1.WatchRequest{SessionId: id})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w4.Header(); err != nil {
		t.Fatal(err)
	}
	if _, err := e.client.CloseSession(ctx, &robotav1.CloseSessionRequest{SessionId: id}); err != nil {
		t.Fatal(err)
	}
	if _, err := w4.Recv(); err == nil || err.Error() != "EOF" {
		t.Fatalf("watch of a closed session ended with %v, want EOF", err)
	}
}

// A client that stops reading is cut off with RESOURCE_EXHAUSTED once its bounded queue
// overflows; the prompt and the other client go on unharmed.
func TestStalledClientIsCutOffWhileTheSessionGoesOn(t *testing.T) {
	e := startEngine(t, "", func(c *manager.Config) {
		// Above the largest single event (the complete event carries the 2 MiB answer),
		// below what a client that reads nothing leaves queued (the deltas and that event).
		c.Interactive.Delivery = interactive.DeliveryLimits{SubscriberBytes: 5 << 19}
	})
	big := strings.Repeat("abcdefgh", 256<<10) // 2 MiB
	dir := project(t, fmt.Sprintf(`
turns:
  - when: {lastUserContains: "flood"}
    text: %q
    chunkSize: 4096
    delay: 1ms
  - when: {lastUserContains: "after"}
    text: "still fine"
    repeat: true
`, big))
	id := e.create(dir, nil).GetSessionId()
	ctx := testCtx(t)
	// Small fixed windows: the stalled client's transport stops taking data after 64 KiB.
	stalledConn := e.dial(grpc.WithInitialWindowSize(64<<10), grpc.WithInitialConnWindowSize(64<<10))
	stalled, err := robotav1.NewEngineServiceClient(stalledConn).Watch(ctx, &robotav1.WatchRequest{SessionId: id})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stalled.Header(); err != nil {
		t.Fatal(err)
	}
	healthy := e.submit(id, "flood")
	if healthy.err != nil || healthy.text() != big || healthy.last().GetComplete() == nil {
		t.Fatalf("the reading client got %d of %d bytes, last %v, err %v", len(healthy.text()), len(big), kind(healthy.last()), healthy.err)
	}
	var got int
	for {
		resp, err := stalled.Recv()
		if err != nil {
			wantCode(t, "stalled watch", err, codes.ResourceExhausted, "too slow")
			break
		}
		got += len(resp.GetEvent().GetTextDelta().GetText())
	}
	if got >= len(big) {
		t.Fatalf("the stalled client received all %d bytes", got)
	}
	// The session still takes prompts (this one meets the context limit the 2 MiB answer
	// filled, and ends as such a prompt does).
	if r := e.submit(id, "after"); r.err != nil || (r.last().GetComplete() == nil && r.last().GetError() == nil) {
		t.Fatalf("session after the stalled client: %v, %v", r.last(), r.err)
	}
}

// The prompt belongs to the session: the submitting client leaves while a permission
// request waits; another client answers it and watches the prompt complete.
func TestPromptSurvivesItsClientAndAnotherClientAnswers(t *testing.T) {
	e := startEngine(t, "", nil)
	dir := project(t, `
turns:
  - toolCalls: [{id: b1, name: Bash, input: {command: "echo hi"}}]
  - text: "all done"
`)
	id := e.create(dir, nil).GetSessionId()
	ctxA, leave := context.WithCancel(testCtx(t))
	a, err := e.client.Submit(ctxA, &robotav1.SubmitRequest{SessionId: id, Prompt: "go"})
	if err != nil {
		t.Fatal(err)
	}
	req := recvUntil(t, a, func(ev *robotav1.SessionEvent) bool { return ev.GetPermissionRequest() != nil })
	leave()
	if _, err := a.Recv(); status.Code(err) != codes.Canceled {
		t.Fatalf("the leaving client's stream ended with %v", err)
	}

	other := robotav1.NewEngineServiceClient(e.dial())
	ctx := testCtx(t)
	w, err := other.Watch(ctx, &robotav1.WatchRequest{SessionId: id, AfterSequence: req.GetSequence() - 1})
	if err != nil {
		t.Fatal(err)
	}
	first, err := w.Recv()
	if err != nil || first.GetEvent().GetPermissionRequest().GetRequestId() != req.GetPermissionRequest().GetRequestId() {
		t.Fatalf("replayed %v, %v: want the waiting permission request", first, err)
	}
	if _, err := other.RespondPermission(ctx, &robotav1.RespondPermissionRequest{SessionId: id,
		RequestId: req.GetPermissionRequest().GetRequestId(), Answer: robotav1.PermissionAnswer_PERMISSION_ANSWER_ALLOW}); err != nil {
		t.Fatal(err)
	}
	var seen []string
	for {
		resp, err := w.Recv()
		if err != nil {
			t.Fatal(err)
		}
		seen = append(seen, kind(resp.GetEvent()))
		if c := resp.GetEvent().GetComplete(); c != nil {
			if c.GetResult().GetResponse() != "all done" || !has(seen, "tool_end") {
				t.Fatalf("events %v, result %v", seen, c.GetResult())
			}
			return
		}
	}
}

// A batched watcher (WatchRequest.batched) gets the same events, in the same order,
// as a one-by-one watcher, in fewer messages: a replay comes in few batches.
func TestWatchBatchedSameEventsAsOneByOne(t *testing.T) {
	e := startEngine(t, "", nil)
	dir := project(t, `
turns:
  - text: "Reading the script first."
    toolCalls: [{id: r1, name: Read, input: {file_path: script.yaml}}]
  - text: "It is a script of two turns."
`)
	id := e.create(dir, nil).GetSessionId()
	ctx := testCtx(t)
	if sub := e.submit(id, "read it"); sub.err != nil {
		t.Fatal(sub.err)
	}
	read := func(batched bool) (seqs []uint64, messages int) {
		s, err := e.client.Watch(ctx, &robotav1.WatchRequest{SessionId: id, AfterSequence: 1, Batched: batched})
		if err != nil {
			t.Fatal(err)
		}
		for {
			resp, err := s.Recv()
			if err != nil {
				t.Fatalf("watch (batched %v): %v", batched, err)
			}
			messages++
			evs := resp.GetEvents()
			if one := resp.GetEvent(); one != nil { //nolint:staticcheck // the deprecated form is under test
				if batched {
					t.Fatalf("a batched watcher got the one-event field: %v", one)
				}
				evs = []*robotav1.SessionEvent{one}
			} else if !batched {
				t.Fatalf("a one-by-one watcher got a message without its event: %v", resp)
			}
			for _, ev := range evs {
				seqs = append(seqs, ev.GetSequence())
				if ev.GetComplete() != nil {
					return seqs, messages
				}
			}
		}
	}
	one, oneMsgs := read(false)
	all, batchMsgs := read(true)
	if !slices.Equal(one, all) {
		t.Fatalf("batched watcher saw sequences %v, one-by-one %v", all, one)
	}
	if oneMsgs != len(one) || batchMsgs >= oneMsgs {
		t.Fatalf("messages: one-by-one %d for %d events, batched %d (want fewer)", oneMsgs, len(one), batchMsgs)
	}
}

// A denial's words say who denied: a person (automatic unset) is "denied by user"; a
// client that answered without asking anyone (automatic, robota -p --engine) gets the
// in-process headless wording with the request's reason, and its message after it.
func TestPermissionDenialSaysWhoAnswered(t *testing.T) {
	tests := []struct {
		name      string
		automatic bool
		message   string
		want      string
	}{
		{"a person", false, "", "Permission denied for Bash: denied by user"},
		{"a person with a message", false, "use printf", "Permission denied for Bash: denied by user: use printf"},
		{"nobody asked", true, "", "Permission denied for Bash: approval required and no one can be asked (mode default asks before execute tools)"},
		{"nobody asked, with a message", true, "headless",
			"Permission denied for Bash: approval required and no one can be asked (mode default asks before execute tools): headless"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := startEngine(t, "", nil)
			dir := projectFor(t, func(string) string {
				return `
turns:
  - toolCalls: [{id: b1, name: Bash, input: {command: "echo hi"}}]
  - text: "done"
`
			})
			id := e.create(dir, nil).GetSessionId()
			ctx := testCtx(t)
			stream, err := e.client.Submit(ctx, &robotav1.SubmitRequest{SessionId: id, Prompt: "go"})
			if err != nil {
				t.Fatal(err)
			}
			got := drainSubmit(stream, func(ev *robotav1.SessionEvent) {
				if p := ev.GetPermissionRequest(); p != nil {
					if _, err := e.client.RespondPermission(ctx, &robotav1.RespondPermissionRequest{SessionId: id,
						RequestId: p.GetRequestId(), Answer: robotav1.PermissionAnswer_PERMISSION_ANSWER_DENY,
						Message: tt.message, Automatic: tt.automatic}); err != nil {
						t.Errorf("RespondPermission: %v", err)
					}
				}
			})
			if got.err != nil {
				t.Fatal(got.err)
			}
			var text string
			for _, ev := range got.events {
				if te := ev.GetToolEnd(); te != nil && te.GetTool().GetToolCallId() == "b1" {
					text = te.GetTool().GetOutput()
				}
			}
			if text != tt.want {
				t.Fatalf("denial %q, want %q", text, tt.want)
			}
		})
	}
}

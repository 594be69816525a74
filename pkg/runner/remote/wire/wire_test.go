package wire

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

func TestDecodeJob(t *testing.T) {
	id := NewJobID()
	for _, tc := range []struct {
		name, body string
		ok         bool
	}{
		{"process", `{"id":"` + id + `","process":{"command":"ls"}}`, true},
		{"agent", `{"id":"` + id + `","agent":{"prompt":"hi"}}`, true},
		{"not json", `{"id":`, false},
		{"guessable id", `{"id":"bash_1","process":{"command":"ls"}}`, false},
		{"subject wildcard id", `{"id":"*","process":{"command":"ls"}}`, false},
		{"both", `{"id":"` + id + `","agent":{"prompt":"hi"},"process":{"command":"ls"}}`, false},
		{"neither", `{"id":"` + id + `"}`, false},
		{"empty command", `{"id":"` + id + `","process":{"command":" "}}`, false},
		{"empty prompt", `{"id":"` + id + `","agent":{"prompt":""}}`, false},
		{"negative timeout", `{"id":"` + id + `","process":{"command":"ls","timeoutMs":-1}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeJob([]byte(tc.body))
			if (err == nil) != tc.ok {
				t.Fatalf("DecodeJob(%s) = %v, want ok %v", tc.body, err, tc.ok)
			}
			if err != nil && !errors.Is(err, ErrBadJob) {
				t.Fatalf("error %v is not ErrBadJob", err)
			}
		})
	}
}

// FromRunner drops the environment (it may hold secrets) and keeps the rest; Runner
// gives back the job the host runs.
func TestFromRunnerRoundTrip(t *testing.T) {
	id := NewJobID()
	in := runnerapi.Job{ID: "bash_3", Process: &runnerapi.ProcessJob{Command: "make", Cwd: "/src", Env: map[string]string{"TOKEN": "x"}, Timeout: 2 * time.Second}}
	b, err := json.Marshal(FromRunner(id, in, map[string]string{"os": "linux"}))
	if err != nil {
		t.Fatal(err)
	}
	j, err := DecodeJob(b)
	if err != nil {
		t.Fatal(err)
	}
	out := j.Runner()
	if out.ID != id || out.Process.Command != "make" || out.Process.Cwd != "/src" || out.Process.Timeout != 2*time.Second ||
		len(out.Process.Env) != 0 || j.Labels["os"] != "linux" || j.Cwd() != "/src" {
		t.Fatalf("round trip gave %+v %+v", out, out.Process)
	}
}

func TestJobIDs(t *testing.T) {
	a, b := NewJobID(), NewJobID()
	if a == b || !ValidJobID(a) || ValidJobID("bash_1") || ValidJobID(a[:31]+"g") {
		t.Fatalf("ids %s %s", a, b)
	}
	if got := JobIDOf(EventSubject("h1", a)); got != a {
		t.Fatalf("JobIDOf = %q", got)
	}
	// Ids made at once on many goroutines (Start runs on the callers') are all distinct.
	const workers, each = 8, 2000
	got := make(chan string, workers*each)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				got <- NewJobID()
			}
		}()
	}
	wg.Wait()
	close(got)
	seen := map[string]bool{}
	for id := range got {
		if seen[id] || !ValidJobID(id) {
			t.Fatalf("id %s repeated or malformed", id)
		}
		seen[id] = true
	}
}

// Every per-host subject names its host where HostOf reads it, and falls under the
// host's own publish or subscribe rights and the engine's wildcards; a batch of claims
// is told from a claim of one job.
func TestHostSubjects(t *testing.T) {
	id := NewJobID()
	for _, tc := range []struct {
		subject, wildcard string
		sub               bool
	}{
		{ClaimSubject("b", id), ClaimWildcard, false},
		{ClaimsSubject("b"), ClaimWildcard, false},
		{EventSubject("b", id), EventWildcard, false},
		{ChatSubject("b", id), ChatWildcard, false},
		{ToolSubject("b", id), ToolWildcard, false},
		{HeartbeatSubject("b"), HeartbeatWildcard, false},
		{ControlSubject("b", id), "robota.ctl.*.*", true},
		{EventsSubject("b"), EventWildcard, false},
		{ControlBatchSubject("b"), ControlWildcard("b"), true},
		{InboxPrefix("b") + ".x1", "robota.inbox.>", true},
	} {
		if !strings.HasPrefix(tc.subject, "robota.inbox.") && HostOf(tc.subject) != "b" {
			t.Errorf("HostOf(%s) = %q, want b", tc.subject, HostOf(tc.subject))
		}
		if !matches(tc.wildcard, tc.subject) {
			t.Errorf("%s does not match %s", tc.subject, tc.wildcard)
		}
		rights := HostPublish("b")
		if tc.sub {
			rights = HostSubscribe("b")
		}
		allowed := false
		for _, r := range rights {
			allowed = allowed || matches(r, tc.subject)
		}
		if !allowed {
			t.Errorf("host b may not use %s (rights %v)", tc.subject, rights)
		}
		for _, r := range append(HostPublish("c"), HostSubscribe("c")...) {
			if matches(r, tc.subject) {
				t.Errorf("host c's right %s covers host b's subject %s", r, tc.subject)
			}
		}
	}
	if !IsClaims(ClaimsSubject("b")) || IsClaims(ClaimSubject("b", id)) {
		t.Error("IsClaims does not tell a batch from one claim")
	}
	for name, ok := range map[string]bool{"b": true, "gpu-1_x": true, "": false, "a.b": false, "*": false, ">": false, "a b": false,
		strings.Repeat("x", 65): false} {
		if ValidHostName(name) != ok {
			t.Errorf("ValidHostName(%q) = %v, want %v", name, !ok, ok)
		}
	}
}

// matches reports whether NATS subject pattern p matches subject s.
func matches(p, s string) bool {
	pt, st := strings.Split(p, "."), strings.Split(s, ".")
	for i, t := range pt {
		if t == ">" {
			return len(st) > i
		}
		if i >= len(st) || (t != "*" && t != st[i]) {
			return false
		}
	}
	return len(pt) == len(st)
}

// FuzzDecodeJob: job messages come from the stream, which any publisher with rights
// could write to. DecodeJob never panics, and what it accepts is well-formed.
func FuzzDecodeJob(f *testing.F) {
	id := NewJobID()
	f.Add([]byte(`{"id":"` + id + `","process":{"command":"ls"}}`))
	f.Add([]byte(`{"id":"` + id + `","agent":{"prompt":"hi","tools":["Bash"]},"labels":{"gpu":"a100"}}`))
	f.Add([]byte(`{"id":"x"}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		j, err := DecodeJob(data)
		if err != nil {
			return
		}
		if !ValidJobID(j.ID) || (j.Agent == nil) == (j.Process == nil) {
			t.Fatalf("accepted a malformed job %+v", j)
		}
		_ = j.Runner()
	})
}

func TestAckSeq(t *testing.T) {
	for _, tc := range []struct {
		name, subject string
		seq           uint64
		ok            bool
	}{
		{"v1", "$JS.ACK.ROBOTA_JOBS.hosts.1.42.7.1700000000000000000.3", 42, true},
		{"v2", "$JS.ACK.dom.ACCHASH.ROBOTA_JOBS.hosts.2.43.8.1700000000000000000.0.rnd", 43, true},
		{"other stream", "$JS.ACK.OTHER.hosts.1.42.7.1700000000000000000.3", 0, false},
		{"other consumer", "$JS.ACK.ROBOTA_JOBS.spy.1.42.7.1700000000000000000.3", 0, false},
		{"not an ack", "robota.ev.x.1.42.7.1700000000000000000.3", 0, false},
		{"short", "$JS.ACK.ROBOTA_JOBS.hosts.1.42", 0, false},
		{"sequence not a number", "$JS.ACK.ROBOTA_JOBS.hosts.1.4x.7.1700000000000000000.3", 0, false},
		{"empty", "", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seq, ok := AckSeq(tc.subject)
			if seq != tc.seq || ok != tc.ok {
				t.Fatalf("AckSeq(%q) = %d, %v; want %d, %v", tc.subject, seq, ok, tc.seq, tc.ok)
			}
		})
	}
}

// An event survives the wire with every field the task manager reads.
func TestEvRoundTrip(t *testing.T) {
	for _, ev := range []runnerapi.Event{
		{Kind: runnerapi.EventStarted, PID: 7},
		{Kind: runnerapi.EventTextDelta, Text: "out"},
		{Kind: runnerapi.EventToolEnd, Tool: &runnerapi.ToolProgress{CallID: "c", Name: "Bash", FirstArg: "ls", Error: "e"}},
		{Kind: runnerapi.EventCompleted, Output: "o", ExitCode: 0},
		{Kind: runnerapi.EventFailed, Error: "x", Category: "worker", Recoverable: true, ExitCode: 2},
		{Kind: runnerapi.EventCancelled, Reason: "stop"},
	} {
		b, err := json.Marshal(EvOf(ev))
		if err != nil {
			t.Fatal(err)
		}
		var back Ev
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		got := back.Runner()
		if got.Kind != ev.Kind || got.PID != ev.PID || got.Text != ev.Text || got.Output != ev.Output || got.Error != ev.Error ||
			got.Category != ev.Category || got.Recoverable != ev.Recoverable || got.ExitCode != ev.ExitCode || got.Reason != ev.Reason ||
			(ev.Tool != nil && (got.Tool == nil || *got.Tool != *ev.Tool)) {
			t.Fatalf("%s: %+v came back as %+v", b, ev, got)
		}
	}
}

// A host's batch subjects name no job, and no job's subject is taken for one.
func TestBatchSubjects(t *testing.T) {
	id := NewJobID()
	for _, tc := range []struct {
		subject       string
		events, ctlBt bool
	}{
		{EventsSubject("b"), true, false},
		{EventSubject("b", id), false, false},
		{ControlBatchSubject("b"), false, true},
		{ControlSubject("b", id), false, false},
	} {
		if IsEvents(tc.subject) != tc.events || IsControlBatch(tc.subject) != tc.ctlBt {
			t.Errorf("%s: IsEvents %v, IsControlBatch %v; want %v, %v", tc.subject, IsEvents(tc.subject), IsControlBatch(tc.subject), tc.events, tc.ctlBt)
		}
		if ValidJobID(JobIDOf(tc.subject)) == (tc.events || tc.ctlBt) {
			t.Errorf("%s: job id %q", tc.subject, JobIDOf(tc.subject))
		}
	}
}

// A host's batch round-trips through the wire codec, and a job's output that is not
// UTF-8 arrives mangled (U+FFFD), as encoding/json made it, not refused.
func TestHostBatchRoundTrip(t *testing.T) {
	in := HostBatch{Host: "b", Claims: []Claim{{Job: NewJobID(), Ack: "$JS.ACK.x", N: 7}},
		Jobs: []Events{{Job: NewJobID(), Attempt: 2, Events: []Ev{{Kind: runnerapi.EventStarted, PID: 9},
			{Kind: runnerapi.EventCompleted, Output: "a\xffb", ExitCode: 3}}}}}
	b, err := Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out HostBatch
	if err := Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	in.Jobs[0].Events[1].Output = "a\uFFFDb"
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("%s came back as %+v, want %+v", b, out, in)
	}
	// Zero numbers and flags are left out, as encoding/json's omitempty left them out.
	if b, _ := Marshal(Ev{Kind: runnerapi.EventStarted}); string(b) != `{"k":1}` {
		t.Errorf("a start with no pid is %s", b)
	}
}

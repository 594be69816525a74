package remote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/robota-sdk/robota-go/pkg/runner/remote/natsserver"
	"github.com/robota-sdk/robota-go/pkg/runner/remote/wire"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// Each host agent's user publishes and subscribes under its own name only: it reads
// its own jobs' control subjects and its own inboxes, never another host's, the job
// stream's subject, the engine's subjects (every job's events, calls, claims), the
// engine's inboxes or the heartbeats; it cannot speak as another host, publish jobs or
// control messages, or manage the stream.
func TestHostCredentialIsConfinedToItsOwnSubjects(t *testing.T) {
	ns := startServer(t)
	newDispatcher(t, ns, DispatcherConfig{})
	id := wire.NewJobID()
	for _, tc := range []struct {
		subject string
		sub     bool // subscribe, else publish
		allowed bool
	}{
		{wire.ControlSubject("h1", id), true, true},
		{wire.InboxPrefix("h1") + ".abc", true, true},
		{wire.ControlSubject("h2", id), true, false},
		{"robota.ctl.*.*", true, false},
		{wire.InboxPrefix("h2") + ".abc", true, false},
		{"robota.inbox.>", true, false},
		{"_INBOX.>", true, false},
		{wire.JobsSubject, true, false},
		{wire.EventWildcard, true, false},
		{wire.ChatWildcard, true, false},
		{wire.ToolWildcard, true, false},
		{wire.ClaimWildcard, true, false},
		{wire.HeartbeatWildcard, true, false},
		{">", true, false},
		{wire.EventSubject("h1", id), false, true},
		{wire.HeartbeatSubject("h1"), false, true},
		{wire.EventSubject("h2", id), false, false},
		{wire.ChatSubject("h2", id), false, false},
		{wire.ToolSubject("h2", id), false, false},
		{wire.ClaimsSubject("h2"), false, false},
		{wire.HeartbeatSubject("h2"), false, false},
		{wire.JobsSubject, false, false},
		{"$JS.API.STREAM.DELETE." + wire.Stream, false, false},
		{"$JS.API.CONSUMER.MSG.NEXT." + wire.Stream + ".other", false, false},
		{wire.ControlSubject("h1", id), false, false},
	} {
		errs := make(chan error, 4)
		opts := append(HostOptions("h1"), nats.UserInfo("h1", hostPassword("h1")),
			nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { errs <- err }))
		nc, err := Connect(ConnConfig{URLs: ns.ClientURL()}, opts...)
		if err != nil {
			t.Fatal(err)
		}
		if tc.sub {
			_, err = nc.SubscribeSync(tc.subject)
		} else {
			err = nc.Publish(tc.subject, []byte("x"))
		}
		if err == nil {
			err = nc.Flush()
		}
		var denied error
		select {
		case denied = <-errs:
		case <-time.After(300 * time.Millisecond):
		}
		nc.Close()
		if err != nil {
			t.Fatalf("%s: %v", tc.subject, err)
		}
		if got := denied == nil; got != tc.allowed {
			t.Errorf("host h1 subscribe=%v %s: allowed %v (%v), want %v", tc.sub, tc.subject, got, denied, tc.allowed)
		}
	}
}

// A wrong credential is refused, and the error says so: a wrong password, another
// host's password, a host that has no user, or the engine's user with a host's password.
func TestWrongCredentialIsRefused(t *testing.T) {
	ns := startServer(t)
	for _, user := range [][2]string{{"h1", "wrong"}, {"h1", hostPassword("h2")}, {"stranger", "pw-stranger"},
		{natsserver.EngineUser, hostPassword("h1")}} {
		_, err := Connect(ConnConfig{URLs: ns.ClientURL()}, nats.UserInfo(user[0], user[1]))
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), ns.ClientURL()) {
			t.Errorf("Connect as %s with a wrong password: %v, want ErrRefused naming the URL", user[0], err)
		}
	}
}

// robota-worker host with a wrong credential says so in one line and exits non-zero;
// a credentials file of another host is refused before connecting.
func TestHostMainWrongCredential(t *testing.T) {
	ns := startServer(t)
	dir := t.TempDir()
	wrong := filepath.Join(dir, "h1.creds")
	if err := os.WriteFile(wrong, []byte("h1:not-the-password\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"wrong password", []string{"--nats", ns.ClientURL(), "--creds", wrong}, 1, "NATS refused the credentials at " + ns.ClientURL()},
		{"another host's file", []string{"--nats", ns.ClientURL(), "--creds", wrong, "--name", "h2"}, 2,
			"--name h2 does not match the credentials file " + wrong + ", which is host h1's"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			start := time.Now()
			code := HostMain(tc.args, &stdout, &stderr)
			lines := strings.Split(strings.TrimRight(stderr.String(), "\n"), "\n")
			if code != tc.code || len(lines) != 1 || !strings.Contains(lines[0], tc.want) {
				t.Fatalf("HostMain %v: exit %d, stderr %q; want exit %d and one line saying %q", tc.args, code, stderr.String(), tc.code, tc.want)
			}
			if took := time.Since(start); took > 5*time.Second {
				t.Fatalf("refused after %s, want within seconds", took)
			}
		})
	}
}

// The embedded server refuses plaintext off loopback.
func TestEmbeddedServerRefusesPlaintextOffLoopback(t *testing.T) {
	_, err := natsserver.Start(natsserver.Config{Listen: "0.0.0.0:0", StoreDir: t.TempDir(), EnginePassword: "a"})
	if !errors.Is(err, natsserver.ErrPlaintext) {
		t.Fatalf("Start off loopback without TLS: %v, want ErrPlaintext", err)
	}
}

// Each host's credentials file is made once, private, read back the same, and its
// user is the host's name; LoadHostCreds refuses files others can read or whose user is
// not their name.
func TestHostCredsFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "hosts")
	path, pw, err := natsserver.HostCreds(dir, "b")
	if err != nil {
		t.Fatal(err)
	}
	path2, pw2, err := natsserver.HostCreds(dir, "b")
	if err != nil || path2 != path || pw2 != pw || len(pw) != 32 {
		t.Fatalf("second read %s %s %v, want the same credential", path2, pw2, err)
	}
	if _, pwC, err := natsserver.HostCreds(dir, "c"); err != nil || pwC == pw {
		t.Fatalf("host c's credential: %v (same password as b: %v)", err, pwC == pw)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("%s: %v, want mode 0600", path, err)
	}
	if user, ok := credsUser(path); !ok || user != "b" {
		t.Fatalf("credsUser(%s) = %q %v, want b", path, user, ok)
	}
	if opt, err := credsOption(path); err != nil || opt == nil {
		t.Fatalf("credsOption: %v", err)
	}
	if _, _, err := natsserver.HostCreds(dir, natsserver.EngineUser); err == nil {
		t.Fatal("a host may not be named after the engine's user")
	}
	got, err := natsserver.LoadHostCreds(dir)
	if err != nil || len(got) != 2 || got["b"] != pw {
		t.Fatalf("LoadHostCreds: %v %v", got, err)
	}
	for _, tc := range []struct {
		file, body string
		mode       os.FileMode
		want       string
	}{
		{"d.creds", "d:pw\n", 0o644, "readable by others"},
		{"e.creds", "b:pw\n", 0o600, `its user is "b", want the file's name "e"`},
		{"f.creds", "f\n", 0o600, "want USER:PASSWORD"},
	} {
		bad := filepath.Join(t.TempDir(), "hosts")
		if err := os.MkdirAll(bad, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(bad, tc.file), []byte(tc.body), tc.mode); err != nil {
			t.Fatal(err)
		}
		if _, err := natsserver.LoadHostCreds(bad); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("LoadHostCreds with %s: %v, want %q", tc.file, err, tc.want)
		}
	}
}

// A claim whose ack subject is not the job's own message (another stream, consumer or
// sequence) is refused: the engine acks only the message of a job it issued.
func TestClaimWithAForeignAckSubjectIsRefused(t *testing.T) {
	ns := startServer(t)
	d := newDispatcher(t, ns, DispatcherConfig{QueueTimeout: 30 * time.Second})
	ev := newEvents()
	stop, done := start(d, processJob("bash_1", "ok:x"), ev)
	defer func() { stop(); <-done }()
	var id string
	var seq uint64
	deadline := time.Now().Add(5 * time.Second)
	for id == "" || seq == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the job was never queued")
		}
		time.Sleep(10 * time.Millisecond)
		d.mu.Lock()
		for k, j := range d.byID {
			id, seq = k, j.seq
		}
		d.mu.Unlock()
	}
	host := connect(t, ns, "h1")
	for _, ack := range []string{
		"",
		fmt.Sprintf("$JS.ACK.OTHER.hosts.1.%d.1.1700000000000000000.0", seq),
		fmt.Sprintf("$JS.ACK.%s.hosts.1.%d.1.1700000000000000000.0", wire.Stream, seq+1),
	} {
		body, _ := json.Marshal(wire.Claims{Host: "h1", Claims: []wire.Claim{{Job: id, Ack: ack}}})
		m, err := host.Request(wire.ClaimsSubject("h1"), body, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		var r wire.ClaimsReply
		if err := json.Unmarshal(m.Data, &r); err != nil || len(r.Replies) != 1 || r.Replies[0].Run {
			t.Fatalf("claim with ack %q: %s, want a refusal", ack, m.Data)
		}
	}
}

// The engine accepts events and answers calls only for a job it issued, from the host
// whose attempt holds it now. A host with its own valid credential ("mallory") that
// forges a result for h1's job, for a job the engine never issued, or names h1 in its
// message is dropped and logged; its model call is refused; a request whose reply
// subject is not one of its inboxes (here h1's control subject) gets no answer at all.
// The client sees only h1's real result.
func TestForgedResultsAreDroppedAndLogged(t *testing.T) {
	ns := startServer(t)
	core, logs := observer.New(zap.DebugLevel)
	d := newDispatcher(t, ns, DispatcherConfig{Log: zap.New(core)})
	sh := newShell()
	runAgent(t, ns, "h1", sh, nil, nil)
	ev := newEvents()
	_, done := start(d, processJob("bash_1", "hang"), ev)
	ev.next(t, runnerapi.EventStarted)
	jobID := sh.startedJobs()[0]
	unknown := wire.NewJobID()

	// h1 listens on its job's control subject: the reflected answer must not land there.
	h1 := connect(t, ns, "h1")
	ctl, err := h1.SubscribeSync(wire.ControlSubject("h1", jobID))
	if err != nil {
		t.Fatal(err)
	}
	if err := h1.Flush(); err != nil {
		t.Fatal(err)
	}

	mallory := connect(t, ns, "mallory")
	forged := func(host string, attempt int) []byte {
		b, _ := json.Marshal(wire.Events{Host: host, Attempt: attempt, Events: []wire.Ev{{Kind: runnerapi.EventCompleted, Output: "forged"}}})
		return b
	}
	for _, m := range []struct {
		subject string
		body    []byte
	}{
		{wire.EventSubject("mallory", jobID), forged("mallory", 1)},   // another host's job
		{wire.EventSubject("mallory", jobID), forged("", 2)},          // a later attempt it was never given
		{wire.EventSubject("mallory", unknown), forged("mallory", 1)}, // a job never issued
		{wire.EventSubject("mallory", jobID), forged("h1", 1)},        // speaking as h1
	} {
		if err := mallory.Publish(m.subject, m.body); err != nil {
			t.Fatal(err)
		}
	}
	call, _ := json.Marshal(wire.Call{Attempt: 1, Chat: json.RawMessage(`{}`)})
	msg, err := mallory.Request(wire.ChatSubject("mallory", jobID), call, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var step wire.Step
	if err := json.Unmarshal(msg.Data, &step); err != nil || step.Refuse == "" {
		t.Fatalf("a model call for another host's job got %s, want a refusal", msg.Data)
	}
	claim, _ := json.Marshal(wire.Claims{Claims: []wire.Claim{{Job: jobID, Probe: true}}})
	if err := mallory.PublishMsg(&nats.Msg{Subject: wire.ClaimsSubject("mallory"), Reply: wire.ControlSubject("h1", jobID), Data: claim}); err != nil {
		t.Fatal(err)
	}
	if err := mallory.Flush(); err != nil {
		t.Fatal(err)
	}

	want := []string{
		"dropped a host's events: the job is not this host's",
		"dropped a host's events: this engine did not issue the job",
		"dropped a host's events naming another host",
		"dropped a host's call: the job is not this host's",
		"dropped a host's request whose reply subject is not one of its inboxes",
	}
	deadline := time.Now().Add(5 * time.Second)
	for _, w := range want {
		for logs.FilterMessage(w).FilterLevelExact(zap.WarnLevel).Len() == 0 {
			if time.Now().After(deadline) {
				t.Fatalf("no warning %q; logged: %v", w, messages(logs))
			}
			time.Sleep(20 * time.Millisecond)
		}
		e := logs.FilterMessage(w).All()[0]
		if f := e.ContextMap(); f["host"] != "mallory" {
			t.Errorf("%q logged host %v, want mallory", w, f["host"])
		}
	}
	if n := logs.FilterMessage("dropped a host's events: the job is not this host's").Len(); n != 2 {
		t.Errorf("forged events for h1's job logged %d times, want 2", n)
	}
	if m, err := ctl.NextMsg(200 * time.Millisecond); err == nil {
		t.Fatalf("the engine answered onto h1's control subject: %s", m.Data)
	}

	_, _ = sh.Cancel(context.Background(), jobID, "finish")
	if c := ev.next(t, runnerapi.EventCancelled); c.Reason != "finish" {
		t.Fatalf("ended %+v, want h1's own end", c)
	}
	<-done
	for _, e := range ev.all() {
		if e.Output == "forged" || e.Kind == runnerapi.EventCompleted {
			t.Fatalf("a forged result reached the client: %+v", e)
		}
	}
}

func messages(logs *observer.ObservedLogs) []string {
	var out []string
	for _, e := range logs.All() {
		out = append(out, e.Message)
	}
	return out
}

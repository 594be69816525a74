package remote

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/robota-sdk/robota-go/pkg/runner/remote/natsserver"
	"github.com/robota-sdk/robota-go/pkg/runner/remote/wire"
)

// A host agent's credential subscribes to job control subjects and its inboxes only:
// never to the job stream's subject, the engine's subjects (other jobs' events, calls,
// claims) or the heartbeats; it cannot publish jobs or manage the stream.
func TestHostCredentialIsConfinedToJobSubjects(t *testing.T) {
	ns := startServer(t)
	newDispatcher(t, ns, DispatcherConfig{})
	id := wire.NewJobID()
	for _, tc := range []struct {
		subject string
		sub     bool // subscribe, else publish
		allowed bool
	}{
		{wire.ControlSubject(id), true, true},
		{"_INBOX.abc", true, true},
		{wire.JobsSubject, true, false},
		{wire.EventWildcard, true, false},
		{wire.ChatWildcard, true, false},
		{wire.ClaimWildcard, true, false},
		{wire.HeartbeatWildcard, true, false},
		{">", true, false},
		{wire.JobsSubject, false, false},
		{"$JS.API.STREAM.DELETE." + wire.Stream, false, false},
		{"robota.ctl." + id, false, false},
	} {
		errs := make(chan error, 4)
		nc, err := Connect(ConnConfig{URLs: ns.ClientURL()}, nats.UserInfo(natsserver.HostUser, hostPassword),
			nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) { errs <- err }))
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
			t.Errorf("host subscribe=%v %s: allowed %v (%v), want %v", tc.sub, tc.subject, got, denied, tc.allowed)
		}
	}
}

// A wrong credential is refused, and the error says so.
func TestWrongCredentialIsRefused(t *testing.T) {
	ns := startServer(t)
	_, err := Connect(ConnConfig{URLs: ns.ClientURL()}, nats.UserInfo(natsserver.HostUser, "wrong"))
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), ns.ClientURL()) {
		t.Fatalf("Connect with a wrong password: %v, want ErrRefused naming the URL", err)
	}
}

// The embedded server refuses plaintext off loopback.
func TestEmbeddedServerRefusesPlaintextOffLoopback(t *testing.T) {
	_, err := natsserver.Start(natsserver.Config{Listen: "0.0.0.0:0", StoreDir: t.TempDir(), EnginePassword: "a", HostPassword: "b"})
	if !errors.Is(err, natsserver.ErrPlaintext) {
		t.Fatalf("Start off loopback without TLS: %v, want ErrPlaintext", err)
	}
}

// The hosts' credentials file is made once, private, and read back the same.
func TestHostCredsFile(t *testing.T) {
	dir := t.TempDir()
	path, pw, err := natsserver.HostCreds(dir)
	if err != nil {
		t.Fatal(err)
	}
	path2, pw2, err := natsserver.HostCreds(dir)
	if err != nil || path2 != path || pw2 != pw || len(pw) != 32 {
		t.Fatalf("second read %s %s %v, want the same credential", path2, pw2, err)
	}
	opt, err := credsOption(path)
	if err != nil || opt == nil {
		t.Fatalf("credsOption: %v", err)
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
	host := connect(t, ns, true)
	for _, ack := range []string{
		"",
		fmt.Sprintf("$JS.ACK.OTHER.hosts.1.%d.1.1700000000000000000.0", seq),
		fmt.Sprintf("$JS.ACK.%s.hosts.1.%d.1.1700000000000000000.0", wire.Stream, seq+1),
	} {
		body, _ := json.Marshal(wire.Claims{Host: "h1", Claims: []wire.Claim{{Job: id, Ack: ack}}})
		m, err := host.Request(wire.ClaimsSubject, body, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		var r wire.ClaimsReply
		if err := json.Unmarshal(m.Data, &r); err != nil || len(r.Replies) != 1 || r.Replies[0].Run {
			t.Fatalf("claim with ack %q: %s, want a refusal", ack, m.Data)
		}
	}
}

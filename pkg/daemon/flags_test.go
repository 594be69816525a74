package daemon

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/runner/remote"
)

func TestNATSFlags(t *testing.T) {
	for _, tc := range []struct {
		name     string
		args     []string
		dispatch remote.Mode
		timeout  time.Duration
		maxTasks int
		hosts    []string
		err      string
	}{
		{name: "no nats", args: nil, dispatch: "", timeout: 5 * time.Second},
		{name: "nats defaults to auto", args: []string{"--nats", "nats://a:4222"}, dispatch: "", timeout: 5 * time.Second, maxTasks: 64},
		{name: "explicit remote", args: []string{"--nats", "embedded", "--dispatch", "remote", "--nats-job-timeout", "2s"}, dispatch: remote.ModeRemote, timeout: 2 * time.Second, maxTasks: 64},
		{name: "remote needs nats", args: []string{"--dispatch", "remote"}, err: "--dispatch remote needs --nats"},
		{name: "auto needs nats", args: []string{"--dispatch", "auto"}, err: "--dispatch auto needs --nats"},
		{name: "bad mode", args: []string{"--nats", "embedded", "--dispatch", "everywhere"}, err: `--dispatch "everywhere"`},
		{name: "bad timeout", args: []string{"--nats", "embedded", "--nats-job-timeout", "0s"}, err: "--nats-job-timeout must be positive"},
		{name: "hosts", args: []string{"--nats", "embedded", "--nats-hosts", "b, c-2,"}, timeout: 5 * time.Second, maxTasks: 64, hosts: []string{"b", "c-2"}},
		{name: "host name with a dot", args: []string{"--nats", "embedded", "--nats-hosts", "b.c"}, err: `--nats-hosts: "b.c" is not a host name`},
		{name: "host named engine", args: []string{"--nats", "embedded", "--nats-hosts", "engine"}, err: `--nats-hosts: "engine" is not a host name`},
		{name: "hosts need embedded", args: []string{"--nats", "nats://a:4222", "--nats-hosts", "b"}, err: "--nats-hosts needs --nats embedded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := ParseFlags(append([]string{"--listen", "unix:///tmp/x.sock"}, tc.args...), io.Discard)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("ParseFlags(%v) = %v, want an error containing %q", tc.args, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if o.NATS.Dispatch != tc.dispatch || o.NATS.JobTimeout != tc.timeout || o.Sessions.MaxBackgroundTasks != tc.maxTasks ||
				strings.Join(o.NATS.Hosts, ",") != strings.Join(tc.hosts, ",") {
				t.Fatalf("ParseFlags(%v): dispatch %q timeout %s max tasks %d hosts %v", tc.args, o.NATS.Dispatch, o.NATS.JobTimeout,
					o.Sessions.MaxBackgroundTasks, o.NATS.Hosts)
			}
		})
	}
}

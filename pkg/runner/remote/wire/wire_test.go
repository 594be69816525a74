package wire

import (
	"encoding/json"
	"errors"
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
	if got := JobIDOf(EventSubject(a)); got != a {
		t.Fatalf("JobIDOf = %q", got)
	}
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

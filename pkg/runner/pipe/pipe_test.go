package pipe_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/robota-sdk/robota-go/pkg/runner/pipe"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
	"github.com/robota-sdk/robota-go/pkg/runner/worker"
)

// connect serves the real worker runner over in-memory pipes and returns a client of it,
// and a channel that yields pipe.Serve's result.
func connect(t *testing.T) (*pipe.Client, <-chan error) {
	t.Helper()
	reqR, reqW := io.Pipe()   // client -> worker
	respR, respW := io.Pipe() // worker -> client
	served := make(chan error, 1)
	go func() {
		served <- pipe.Serve(context.Background(), reqR, respW, worker.New(hclog.NewNullLogger()))
		respW.Close()
	}()
	c, err := pipe.NewClient(respR, reqW, reqW.Close, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, served
}

func processJob(id, command string) runnerapi.Job {
	return runnerapi.Job{ID: id, Process: &runnerapi.ProcessJob{Command: command}}
}

func TestStartStreamsEventsInOrder(t *testing.T) {
	c, _ := connect(t)
	var evs []runnerapi.Event
	err := c.Start(context.Background(), processJob("j1", "echo one; echo two"), func(ev runnerapi.Event) error {
		evs = append(evs, ev)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) < 2 || evs[0].Kind != runnerapi.EventStarted || evs[0].PID == 0 {
		t.Fatalf("events = %+v, want started with a pid first", evs)
	}
	var text strings.Builder
	for i, ev := range evs {
		if ev.Sequence != uint64(i+1) || ev.JobID != "j1" {
			t.Fatalf("event %d = %+v: sequence or job id wrong", i, ev)
		}
		text.WriteString(ev.Text)
	}
	last := evs[len(evs)-1]
	if last.Kind != runnerapi.EventCompleted || last.Output != "one\ntwo\n" || text.String() != "one\ntwo\n" {
		t.Fatalf("terminal = %+v, streamed %q", last, text.String())
	}
	page, err := c.ReadLog(context.Background(), "j1", 0, 100)
	if err != nil || string(page.Data) != "one\ntwo\n" || !page.EOF {
		t.Fatalf("ReadLog = %+v, %v", page, err)
	}
}

func TestSentinelErrorsCrossThePipe(t *testing.T) {
	c, _ := connect(t)
	if _, err := c.ReadLog(context.Background(), "nope", 0, 10); !errors.Is(err, runnerapi.ErrUnknownJob) {
		t.Fatalf("ReadLog of an unknown job: %v, want ErrUnknownJob", err)
	}
	if err := c.Send(context.Background(), "nope", "x"); !errors.Is(err, runnerapi.ErrUnknownJob) {
		t.Fatalf("Send to an unknown job: %v, want ErrUnknownJob", err)
	}
	err := c.Start(context.Background(), runnerapi.Job{ID: "a", Agent: &runnerapi.AgentJob{Prompt: "hi"}},
		func(runnerapi.Event) error { return nil })
	if !errors.Is(err, runnerapi.ErrUnsupportedJob) {
		t.Fatalf("agent job: %v, want ErrUnsupportedJob", err)
	}
}

func TestCancelAndContextStopTheJob(t *testing.T) {
	for _, how := range []string{"cancel", "context"} {
		t.Run(how, func(t *testing.T) {
			c, _ := connect(t)
			ctx, stop := context.WithCancel(context.Background())
			defer stop()
			started := make(chan struct{})
			var last runnerapi.Event
			done := make(chan error, 1)
			go func() {
				done <- c.Start(ctx, processJob("s", "sleep 30"), func(ev runnerapi.Event) error {
					if ev.Kind == runnerapi.EventStarted {
						close(started)
					}
					last = ev
					return nil
				})
			}()
			<-started
			if how == "cancel" {
				if running, err := c.Cancel(context.Background(), "s", "user asked"); err != nil || !running {
					t.Fatalf("Cancel = %v, %v", running, err)
				}
			} else {
				stop()
			}
			select {
			case err := <-done:
				if err != nil || last.Kind != runnerapi.EventCancelled {
					t.Fatalf("Start = %v, last event %+v; want a cancelled job", err, last)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the job was not stopped")
			}
		})
	}
}

func TestClientGoneEndsServeAndItsJobs(t *testing.T) {
	c, served := connect(t)
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- c.Start(context.Background(), processJob("s", "sleep 30"), func(ev runnerapi.Event) error {
			if ev.Kind == runnerapi.EventStarted {
				close(started)
			}
			return nil
		})
	}()
	<-started
	c.Close() // closes the worker's stdin
	select {
	case err := <-served:
		if err != nil {
			t.Fatalf("pipe.Serve = %v, want nil after the client left", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("pipe.Serve did not end its jobs and return after stdin closed")
	}
	if err := <-done; err != nil && !errors.Is(err, pipe.ErrWorkerExited) {
		t.Fatalf("Start after the worker went away = %v", err)
	}
	if _, err := c.Cancel(context.Background(), "s", ""); !errors.Is(err, pipe.ErrWorkerExited) {
		t.Fatalf("call after the worker exited = %v, want pipe.ErrWorkerExited", err)
	}
}

func TestWrongPeerIsRefused(t *testing.T) {
	for name, out := range map[string]string{
		"another protocol": `{"hello":"something-else/9"}` + "\n",
		"not JSON":         "This binary is a plugin.\n",
		"silence":          "",
	} {
		t.Run(name, func(t *testing.T) {
			r := strings.NewReader(out)
			var in io.Reader = r
			if out == "" {
				pr, pw := io.Pipe()
				defer pw.Close()
				in = pr
			}
			_, err := pipe.NewClient(in, io.Discard, nil, 200*time.Millisecond)
			if !errors.Is(err, pipe.ErrProtocol) {
				t.Fatalf("pipe.NewClient = %v, want pipe.ErrProtocol", err)
			}
		})
	}
}

package worker

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
	"github.com/robota-sdk/robota-go/pkg/runner/workerplugin"
)

// A process group that ignores SIGTERM keeps the job alive for the whole kill
// grace after the engine goes away. The event loop must wait through it, not
// spin on the done context (review B7: ~2.7 s of CPU per cancel).
func TestCancelledContextDoesNotSpinTheEventLoop(t *testing.T) {
	w := New(nil)
	w.killGrace = time.Second
	var passes atomic.Int64
	w.loopHook = func() { passes.Add(1) }
	ctx, cancel := context.WithCancel(context.Background())
	var evs []runnerapi.Event
	err := w.Start(ctx, runnerapi.Job{ID: "stubborn", Process: &runnerapi.ProcessJob{
		// Ignored dispositions survive exec, so sleep ignores SIGTERM too.
		Command: "trap '' TERM; echo up; sleep 30",
	}}, func(ev runnerapi.Event) error {
		evs = append(evs, ev)
		if ev.Kind == runnerapi.EventTextDelta {
			cancel()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if last := evs[len(evs)-1]; last.Kind != runnerapi.EventCancelled || last.Reason != "engine went away" {
		t.Fatalf("terminal = %+v, want cancelled because the engine went away", last)
	}
	// Passes: start, one per output wake-up, the cancel, the end. A spinning
	// loop makes millions in the one-second grace.
	if n := passes.Load(); n > 20 {
		t.Fatalf("event loop ran %d passes while waiting for SIGKILL; want a handful", n)
	}
}

func TestFinishedJobsAreEvictedOldestFirst(t *testing.T) {
	w := New(nil)
	w.jobs = newJobTable(2, 1<<20)
	for i := range 3 {
		runJob(t, w, runnerapi.Job{ID: fmt.Sprint("j", i), Process: &runnerapi.ProcessJob{Command: fmt.Sprint("echo ", i)}}, nil)
	}
	if _, err := w.ReadLog(context.Background(), "j0", 0, 0); !errors.Is(err, runnerapi.ErrUnknownJob) {
		t.Fatalf("ReadLog of the evicted oldest job = %v, want ErrUnknownJob", err)
	}
	for i := 1; i < 3; i++ {
		page, err := w.ReadLog(context.Background(), fmt.Sprint("j", i), 0, 0)
		if err != nil || string(page.Data) != fmt.Sprint(i, "\n") || !page.EOF {
			t.Fatalf("ReadLog(j%d) = %q eof %v, %v; want the kept job's log", i, page.Data, page.EOF, err)
		}
	}
	if n := w.jobs.size(); n != 2 {
		t.Fatalf("worker holds %d jobs, want 2", n)
	}
}

func TestEvictionByLogBytesKeepsRunningJobsAndTheNewest(t *testing.T) {
	w := New(nil)
	// Room for many jobs but only 10 bytes of finished logs.
	w.jobs = newJobTable(100, 10)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	running := make(chan struct{})
	ended := make(chan error, 1)
	go func() {
		ended <- w.Start(ctx, runnerapi.Job{ID: "long", Process: &runnerapi.ProcessJob{Command: "echo long-running; sleep 30"}},
			func(ev runnerapi.Event) error {
				if ev.Kind == runnerapi.EventTextDelta {
					close(running)
				}
				return nil
			})
	}()
	<-running
	runJob(t, w, runnerapi.Job{ID: "a", Process: &runnerapi.ProcessJob{Command: "echo aaaaaaaa"}}, nil)
	runJob(t, w, runnerapi.Job{ID: "b", Process: &runnerapi.ProcessJob{Command: "echo bbbbbbbbbbbbbbbbbbbb"}}, nil)
	if _, err := w.ReadLog(context.Background(), "a", 0, 0); !errors.Is(err, runnerapi.ErrUnknownJob) {
		t.Fatalf("ReadLog(a) = %v, want it evicted for the byte cap", err)
	}
	if page, err := w.ReadLog(context.Background(), "b", 0, 0); err != nil || !strings.HasPrefix(string(page.Data), "bbbb") {
		t.Fatalf("ReadLog(b) = %q, %v; the newest finished job must stay even over the cap", page.Data, err)
	}
	if page, err := w.ReadLog(context.Background(), "long", 0, 0); err != nil || string(page.Data) != "long-running\n" {
		t.Fatalf("ReadLog(long) = %q, %v; a running job must never be evicted", page.Data, err)
	}
	cancel()
	if err := <-ended; err != nil {
		t.Fatal(err)
	}
}

func TestReusedJobIDIsNotEvictedByItsPredecessor(t *testing.T) {
	w := New(nil)
	w.jobs = newJobTable(1, 1<<20)
	runJob(t, w, runnerapi.Job{ID: "x", Process: &runnerapi.ProcessJob{Command: "echo first"}}, nil)
	runJob(t, w, runnerapi.Job{ID: "x", Process: &runnerapi.ProcessJob{Command: "echo second"}}, nil)
	page, err := w.ReadLog(context.Background(), "x", 0, 0)
	if err != nil || string(page.Data) != "second\n" {
		t.Fatalf("ReadLog(x) = %q, %v; want the second run's log", page.Data, err)
	}
}

func TestProcessJobsDoNotInheritSecrets(t *testing.T) {
	for k, v := range map[string]string{
		"ANTHROPIC_API_KEY": "sk-1", "GITHUB_TOKEN": "t", "CLAUDE_CODE_OAUTH_AUTH_TOKEN": "t",
		"MY_SECRET_THING": "s", "DB_PASSWORD": "p", "PLUGIN_CLIENT_CERT": "cert",
		workerplugin.Handshake.MagicCookieKey: workerplugin.Handshake.MagicCookieValue,
		"ROBOTA_HARMLESS":                     "kept",
	} {
		t.Setenv(k, v)
	}
	evs := runJob(t, New(nil), runnerapi.Job{ID: "env", Process: &runnerapi.ProcessJob{
		Command: "env", Env: map[string]string{"EXPLICIT": "given"},
	}}, nil)
	got := output(evs)
	for _, leaked := range []string{"ANTHROPIC_API_KEY", "GITHUB_TOKEN", "CLAUDE_CODE_OAUTH_AUTH_TOKEN", "MY_SECRET_THING",
		"DB_PASSWORD", "PLUGIN_CLIENT_CERT", workerplugin.Handshake.MagicCookieKey} {
		if strings.Contains(got, leaked+"=") {
			t.Errorf("process job env has %s:\n%s", leaked, got)
		}
	}
	for _, kept := range []string{"ROBOTA_HARMLESS=kept", "EXPLICIT=given", "PATH="} {
		if !strings.Contains(got, kept) {
			t.Errorf("process job env lacks %s:\n%s", kept, got)
		}
	}
}

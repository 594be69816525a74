package worker

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

func runJob(t *testing.T, w *Worker, job runnerapi.Job, onEvent func(runnerapi.Event)) []runnerapi.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var evs []runnerapi.Event
	err := w.Start(ctx, job, func(ev runnerapi.Event) error {
		evs = append(evs, ev)
		if onEvent != nil {
			onEvent(ev)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

func output(evs []runnerapi.Event) string {
	var b strings.Builder
	for _, ev := range evs {
		if ev.Kind == runnerapi.EventTextDelta {
			b.WriteString(ev.Text)
		}
	}
	return b.String()
}

func TestProcessJobOutcomes(t *testing.T) {
	tests := []struct {
		name     string
		job      runnerapi.ProcessJob
		wantKind runnerapi.EventKind
		wantOut  string
		wantExit int
		wantCat  string
	}{
		{name: "success", job: runnerapi.ProcessJob{Command: "printf 'a\\nb\\n'"},
			wantKind: runnerapi.EventCompleted, wantOut: "a\nb\n"},
		{name: "env and cwd", job: runnerapi.ProcessJob{Command: "echo $GREETING; pwd", Cwd: "/", Env: map[string]string{"GREETING": "hi"}},
			wantKind: runnerapi.EventCompleted, wantOut: "hi\n/\n"},
		{name: "stderr merged", job: runnerapi.ProcessJob{Command: "echo x >&2"},
			wantKind: runnerapi.EventCompleted, wantOut: "x\n"},
		{name: "non-zero exit", job: runnerapi.ProcessJob{Command: "echo bad; exit 7"},
			wantKind: runnerapi.EventFailed, wantOut: "bad\n", wantExit: 7, wantCat: "process"},
		// The shell is bash, as for foreground commands (on a machine that has it).
		{name: "bash syntax", job: runnerapi.ProcessJob{Command: `x=(a b); [[ ${#x[@]} == 2 ]] && echo bash`},
			wantKind: runnerapi.EventCompleted, wantOut: "bash\n"},
		{name: "timeout", job: runnerapi.ProcessJob{Command: "echo start; sleep 30", Timeout: 300 * time.Millisecond},
			wantKind: runnerapi.EventFailed, wantOut: "start\n", wantExit: -1, wantCat: "timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			job := tt.job
			evs := runJob(t, New(nil), runnerapi.Job{ID: "j", Process: &job}, nil)
			last := evs[len(evs)-1]
			if last.Kind != tt.wantKind || last.ExitCode != tt.wantExit || last.Category != tt.wantCat {
				t.Fatalf("terminal = %+v, want kind %v exit %d category %q", last, tt.wantKind, tt.wantExit, tt.wantCat)
			}
			if got := output(evs); got != tt.wantOut {
				t.Fatalf("streamed output = %q, want %q", got, tt.wantOut)
			}
			if last.Kind != runnerapi.EventFailed || last.Category != "timeout" {
				if last.Output != tt.wantOut {
					t.Fatalf("terminal output = %q, want %q", last.Output, tt.wantOut)
				}
			}
			for i, ev := range evs {
				if ev.Sequence != uint64(i+1) || ev.JobID != "j" {
					t.Fatalf("event %d = %+v: sequence/job id wrong", i, ev)
				}
			}
		})
	}
}

func TestSendWritesStdin(t *testing.T) {
	w := New(nil)
	evs := runJob(t, w, runnerapi.Job{ID: "cat", Process: &runnerapi.ProcessJob{Command: "head -n 1"}},
		func(ev runnerapi.Event) {
			if ev.Kind == runnerapi.EventStarted {
				if err := w.Send(context.Background(), "cat", "ping\n"); err != nil {
					t.Error(err)
				}
			}
		})
	if got := output(evs); got != "ping\n" {
		t.Fatalf("output = %q, want the sent line echoed", got)
	}
	if err := w.Send(context.Background(), "cat", "late"); err == nil {
		t.Fatal("Send to an ended job succeeded")
	}
}

func TestReadLogPagesAndReportsEOF(t *testing.T) {
	w := New(nil)
	runJob(t, w, runnerapi.Job{ID: "l", Process: &runnerapi.ProcessJob{Command: "printf 0123456789"}}, nil)
	var got []byte
	var off int64
	for i := 0; i < 10; i++ {
		page, err := w.ReadLog(context.Background(), "l", off, 4)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, page.Data...)
		off = page.NextOffset
		if page.EOF {
			break
		}
	}
	if string(got) != "0123456789" || off != 10 {
		t.Fatalf("paged log = %q up to %d", got, off)
	}
}

func TestUnknownJobAndEmptyJobs(t *testing.T) {
	w := New(nil)
	if _, err := w.ReadLog(context.Background(), "nope", 0, 0); !errors.Is(err, runnerapi.ErrUnknownJob) {
		t.Fatalf("ReadLog(nope) = %v", err)
	}
	if _, err := w.Cancel(context.Background(), "nope", ""); !errors.Is(err, runnerapi.ErrUnknownJob) {
		t.Fatalf("Cancel(nope) = %v", err)
	}
	err := w.Start(context.Background(), runnerapi.Job{ID: "x"}, func(runnerapi.Event) error { return nil })
	if !errors.Is(err, runnerapi.ErrUnsupportedJob) {
		t.Fatalf("job with neither agent nor process = %v, want ErrUnsupportedJob", err)
	}
}

func TestContextCancelKillsProcess(t *testing.T) {
	w := New(nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan []runnerapi.Event, 1)
	go func() {
		var evs []runnerapi.Event
		_ = w.Start(ctx, runnerapi.Job{ID: "c", Process: &runnerapi.ProcessJob{Command: "echo up; sleep 30"}},
			func(ev runnerapi.Event) error {
				evs = append(evs, ev)
				if ev.Kind == runnerapi.EventTextDelta {
					cancel()
				}
				return nil
			})
		done <- evs
	}()
	select {
	case evs := <-done:
		if last := evs[len(evs)-1]; last.Kind != runnerapi.EventCancelled || last.Reason != "engine went away" {
			t.Fatalf("terminal = %+v, want cancelled because the engine went away", last)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("job survived its context")
	}
}

func TestOutputLogKeepsTheTailWithinCap(t *testing.T) {
	l := newOutputLog(10)
	for _, s := range []string{"aaaa", "bbbb", "cccc", "dddd"} {
		_, _ = l.Write([]byte(s))
	}
	if l.End() != 16 {
		t.Fatalf("End = %d, want 16 bytes written in all", l.End())
	}
	data, next := l.ReadAt(0, 100)
	if !strings.HasSuffix("aaaabbbbccccdddd", string(data)) || len(data) > 10 || next != 16 {
		t.Fatalf("ReadAt(0) = %q next %d: want a tail of at most 10 bytes", data, next)
	}
	if tail := l.Tail(4); tail != "dddd" {
		t.Fatalf("Tail(4) = %q", tail)
	}
}

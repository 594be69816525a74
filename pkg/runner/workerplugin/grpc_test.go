package workerplugin

import (
	"context"
	"errors"
	"fmt"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
	"reflect"
	"testing"
	"time"

	plugin "github.com/hashicorp/go-plugin"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// fakeRunner replays fixed events and records what it was asked.
type fakeRunner struct {
	events   []runnerapi.Event
	startErr error
	gotJob   runnerapi.Job
}

func (f *fakeRunner) Start(_ context.Context, job runnerapi.Job, emit func(runnerapi.Event) error) error {
	f.gotJob = job
	if f.startErr != nil {
		return f.startErr
	}
	for _, ev := range f.events {
		if err := emit(ev); err != nil {
			return err
		}
	}
	return nil
}

func (f *fakeRunner) Cancel(_ context.Context, jobID, reason string) (bool, error) {
	if jobID != "running" {
		return false, fmt.Errorf("job %q: %w", jobID, runnerapi.ErrUnknownJob)
	}
	return reason == "stop", nil
}

func (f *fakeRunner) Send(_ context.Context, jobID, input string) error {
	if input == "" {
		return errors.New("empty input")
	}
	return nil
}

func (f *fakeRunner) ReadLog(_ context.Context, jobID string, offset, limit int64) (runnerapi.LogPage, error) {
	return runnerapi.LogPage{Data: []byte(jobID), NextOffset: offset + limit, EOF: true}, nil
}

// nopHost is a Host nobody calls.
type nopHost struct{}

func (nopHost) Chat(context.Context, llm.ChatRequest, llm.Callbacks) (llm.ChatResponse, error) {
	return llm.ChatResponse{}, errors.New("unexpected model call")
}

func (nopHost) RunTool(context.Context, runnerapi.ToolCall, runnerapi.ToolExec) llm.ToolResult {
	return llm.ToolFailure("unexpected tool call")
}

func dispense(t *testing.T, impl runnerapi.Runner) runnerapi.Runner {
	t.Helper()
	client, _ := plugin.TestPluginGRPCConn(t, false, map[string]plugin.Plugin{PluginName: &GRPCPlugin{Impl: impl}})
	t.Cleanup(func() { client.Close() })
	raw, err := client.Dispense(PluginName)
	if err != nil {
		t.Fatal(err)
	}
	return raw.(runnerapi.Runner)
}

func TestEventsSurviveTheWireInOrder(t *testing.T) {
	events := []runnerapi.Event{
		{JobID: "j", Sequence: 1, Kind: runnerapi.EventStarted, PID: 42},
		{JobID: "j", Sequence: 2, Kind: runnerapi.EventTextDelta, Text: "hello\n"},
		{JobID: "j", Sequence: 3, Kind: runnerapi.EventToolStart, Tool: &runnerapi.ToolProgress{CallID: "c1", Name: "Read", FirstArg: "/a"}},
		{JobID: "j", Sequence: 4, Kind: runnerapi.EventToolEnd, Tool: &runnerapi.ToolProgress{CallID: "c1", Name: "Read", FirstArg: "/a", Error: "boom"}},
		{JobID: "j", Sequence: 5, Kind: runnerapi.EventFailed, Error: "exit status 2", Category: "process", Recoverable: true, ExitCode: 2},
	}
	terminals := []runnerapi.Event{
		{JobID: "j", Sequence: 6, Kind: runnerapi.EventCompleted, Output: "done", ExitCode: 0},
		{JobID: "j", Sequence: 6, Kind: runnerapi.EventCancelled, Reason: "user"},
	}
	for _, term := range terminals {
		t.Run(term.Kind.String(), func(t *testing.T) {
			want := append(append([]runnerapi.Event(nil), events...), term)
			r := dispense(t, &fakeRunner{events: want})
			var got []runnerapi.Event
			err := r.Start(context.Background(), runnerapi.Job{ID: "j", Process: &runnerapi.ProcessJob{Command: "true"}},
				func(ev runnerapi.Event) error { got = append(got, ev); return nil })
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("events after the wire:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

func TestJobsSurviveTheWire(t *testing.T) {
	jobs := []runnerapi.Job{
		{ID: "p", Process: &runnerapi.ProcessJob{Command: "ls", Cwd: "/tmp", Env: map[string]string{"A": "1"}, Timeout: 1500 * time.Millisecond}},
		{ID: "a", Agent: &runnerapi.AgentJob{AgentType: "Explore", Prompt: "look", SystemPrompt: "sys", Model: "m", Cwd: "/w",
			Tools: []string{"Read", "Grep"}, MaxTurns: 7, Isolation: "worktree", AdditionalDirs: []string{"/x", "/y"}}, Host: nopHost{}},
	}
	for _, job := range jobs {
		t.Run(job.ID, func(t *testing.T) {
			f := &fakeRunner{}
			if err := dispense(t, f).Start(context.Background(), job, func(runnerapi.Event) error { return nil }); err != nil {
				t.Fatal(err)
			}
			// An agent job's Host arrives as the engine's service on the broker.
			if (f.gotJob.Host != nil) != (job.Agent != nil) {
				t.Fatalf("worker-side Host = %v for job %+v", f.gotJob.Host, job)
			}
			got, want := f.gotJob, job
			got.Host, want.Host = nil, nil
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("job after the wire = %+v, want %+v", got, want)
			}
		})
	}
}

func TestInvalidJobsAreRefusedBeforeTheWorker(t *testing.T) {
	tests := []struct {
		name string
		job  runnerapi.Job
	}{
		{"neither", runnerapi.Job{ID: "x"}},
		{"both", runnerapi.Job{ID: "x", Agent: &runnerapi.AgentJob{}, Process: &runnerapi.ProcessJob{Command: "ls"}}},
		{"no id", runnerapi.Job{Process: &runnerapi.ProcessJob{Command: "ls"}}},
		{"no command", runnerapi.Job{ID: "x", Process: &runnerapi.ProcessJob{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeRunner{}
			err := dispense(t, f).Start(context.Background(), tt.job, func(runnerapi.Event) error { return nil })
			if err == nil {
				t.Fatal("invalid job accepted")
			}
			if f.gotJob.ID != "" {
				t.Fatalf("worker received invalid job %+v", f.gotJob)
			}
		})
	}
}

func TestSentinelErrorsSurviveTheWire(t *testing.T) {
	r := dispense(t, &fakeRunner{startErr: fmt.Errorf("nope: %w", runnerapi.ErrUnsupportedJob)})
	err := r.Start(context.Background(), runnerapi.Job{ID: "a", Agent: &runnerapi.AgentJob{}, Host: nopHost{}}, func(runnerapi.Event) error { return nil })
	if !errors.Is(err, runnerapi.ErrUnsupportedJob) {
		t.Fatalf("Start error = %v, want runnerapi.ErrUnsupportedJob", err)
	}
	if _, err := r.Cancel(context.Background(), "ghost", ""); !errors.Is(err, runnerapi.ErrUnknownJob) {
		t.Fatalf("Cancel(ghost) = %v, want runnerapi.ErrUnknownJob", err)
	}
	if running, err := r.Cancel(context.Background(), "running", "stop"); err != nil || !running {
		t.Fatalf("Cancel(running) = %v, %v", running, err)
	}
	if err := r.Send(context.Background(), "running", ""); err == nil {
		t.Fatal("Send error lost on the wire")
	}
	page, err := r.ReadLog(context.Background(), "log-1", 10, 5)
	if err != nil || string(page.Data) != "log-1" || page.NextOffset != 15 || !page.EOF {
		t.Fatalf("ReadLog = %+v, %v", page, err)
	}
}

func TestEmitErrorStopsTheStream(t *testing.T) {
	r := dispense(t, &fakeRunner{events: []runnerapi.Event{{Kind: runnerapi.EventTextDelta, Text: "a"}, {Kind: runnerapi.EventTextDelta, Text: "b"}}})
	stop := errors.New("client gone")
	var n int
	err := r.Start(context.Background(), runnerapi.Job{ID: "j", Process: &runnerapi.ProcessJob{Command: "x"}}, func(runnerapi.Event) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Fatalf("Start = %v after %d events, want the emit error after 1", err, n)
	}
}

package workerplugin

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	plugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// preparingRunner counts its Prepare calls; its agent jobs make one model call through
// their Host and answer with its text.
type preparingRunner struct {
	fakeRunner
	prepared   atomic.Int32
	prepareErr error
}

func (p *preparingRunner) Prepare(context.Context) error {
	p.prepared.Add(1)
	return p.prepareErr
}

func (p *preparingRunner) Start(ctx context.Context, job runnerapi.Job, emit func(runnerapi.Event) error) error {
	if job.Agent == nil {
		return p.fakeRunner.Start(ctx, job, emit)
	}
	if err := emit(runnerapi.Event{JobID: job.ID, Sequence: 1, Kind: runnerapi.EventStarted}); err != nil {
		return err
	}
	resp, err := job.Host.Chat(ctx, llm.ChatRequest{Model: "m"}, llm.Callbacks{})
	if err != nil {
		return err
	}
	return emit(runnerapi.Event{JobID: job.ID, Sequence: 2, Kind: runnerapi.EventCompleted, Output: resp.Message.Text()})
}

// answerHost answers every model call with its text.
type answerHost struct{ nopHost }

func (answerHost) Chat(context.Context, llm.ChatRequest, llm.Callbacks) (llm.ChatResponse, error) {
	return llm.ChatResponse{Message: llm.NewAssistantMessage([]llm.Part{llm.TextPart("answered")}, ""),
		StopReason: llm.StopReasonEndTurn}, nil
}

func (c *GRPCClient) hostID() uint32 {
	c.hosts.mu.Lock()
	defer c.hosts.mu.Unlock()
	return c.hosts.id
}

func runAgent(t *testing.T, r runnerapi.Runner, id string) runnerapi.Event {
	t.Helper()
	var last runnerapi.Event
	err := r.Start(context.Background(), runnerapi.Job{ID: id, Host: answerHost{}, Agent: &runnerapi.AgentJob{Prompt: "p"}},
		func(ev runnerapi.Event) error { last = ev; return nil })
	if err != nil {
		t.Fatalf("agent job %s: %v", id, err)
	}
	return last
}

func TestPrepareServesTheHostServiceAheadOfTheFirstAgentJob(t *testing.T) {
	impl := &preparingRunner{}
	c := dispense(t, impl).(*GRPCClient)
	if c.hostID() != 0 {
		t.Fatal("a host service is served before any agent job or Prepare")
	}
	if err := c.Prepare(context.Background()); err != nil {
		t.Fatal(err)
	}
	id := c.hostID()
	if id == 0 || impl.prepared.Load() != 1 {
		t.Fatalf("after Prepare: host service id %d, worker prepared %d times; want served and prepared once", id, impl.prepared.Load())
	}
	if last := runAgent(t, c, "a"); last.Kind != runnerapi.EventCompleted || last.Output != "answered" {
		t.Fatalf("agent job after Prepare ended %+v", last)
	}
	// Preparing again is harmless and keeps the service the jobs use.
	if err := c.Prepare(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := c.hostID(); got != id {
		t.Fatalf("host service id %d after jobs and a second Prepare, want %d", got, id)
	}
}

func TestPrepareWorksWithARunnerThatCannotPrepare(t *testing.T) {
	c := dispense(t, &fakeRunner{}).(*GRPCClient)
	if err := c.Prepare(context.Background()); err != nil {
		t.Fatalf("Prepare of a runner without Prepare = %v, want nil (the connection alone)", err)
	}
}

func TestPrepareReportsTheWorkersFailure(t *testing.T) {
	c := dispense(t, &preparingRunner{prepareErr: errors.New("no tools today")}).(*GRPCClient)
	err := c.Prepare(context.Background())
	if err == nil || !strings.Contains(err.Error(), "no tools today") {
		t.Fatalf("Prepare = %v, want the worker's error", err)
	}
}

// The worker connects during Prepare: go-plugin's broker forgets an address nobody
// dialled within 5 s, so a job long after Prepare still finds the service it was
// offered, with no retry on a fresh one.
func TestPreparedHostServiceOutlivesTheBrokersTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out the broker's 5 s timeout")
	}
	c := dispense(t, &preparingRunner{}).(*GRPCClient)
	if err := c.Prepare(context.Background()); err != nil {
		t.Fatal(err)
	}
	id := c.hostID()
	time.Sleep(5500 * time.Millisecond)
	if last := runAgent(t, c, "late"); last.Output != "answered" {
		t.Fatalf("agent job ended %+v", last)
	}
	if got := c.hostID(); got != id {
		t.Fatalf("the job was offered host service %d, not the prepared %d: the worker had not connected", got, id)
	}
}

// A worker that cannot reach the host service fails Prepare; the next agent job is
// offered a fresh service and runs.
func TestPrepareWithAnUnreachableHostServiceOffersAFreshOneNext(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out the broker's 5 s timeout")
	}
	impl := &preparingRunner{}
	c := dispense(t, impl).(*GRPCClient)
	c.hosts.mu.Lock()
	c.hosts.id = c.broker.NextId() // an id nothing serves
	bogus := c.hosts.id
	c.hosts.mu.Unlock()
	err := c.Prepare(context.Background())
	if err == nil || !strings.Contains(err.Error(), errHostUnreachable) {
		t.Fatalf("Prepare = %v, want %q", err, errHostUnreachable)
	}
	if impl.prepared.Load() != 0 {
		t.Fatal("the worker prepared its jobs although its host service was unreachable")
	}
	if last := runAgent(t, c, "after"); last.Output != "answered" {
		t.Fatalf("agent job ended %+v", last)
	}
	if got := c.hostID(); got == bogus || got == 0 {
		t.Fatalf("host service id %d after the failed Prepare, want a fresh one (not %d)", got, bogus)
	}
}

// legacyPlugin serves a RunnerService that predates Prepare.
type legacyPlugin struct{ GRPCPlugin }

type legacyServer struct{ *grpcServer }

func (legacyServer) Prepare(context.Context, *robotav1.PrepareRequest) (*robotav1.PrepareResponse, error) {
	return nil, status.Error(codes.Unimplemented, "unknown method Prepare")
}

func (p *legacyPlugin) GRPCServer(broker *plugin.GRPCBroker, s *grpc.Server) error {
	robotav1.RegisterRunnerServiceServer(s, legacyServer{&grpcServer{impl: p.Impl, broker: broker, hosts: map[uint32]*grpc.ClientConn{}}})
	return nil
}

// A worker older than Prepare is left unprepared without an error, and its first
// agent job is offered a fresh host service rather than the undialled one.
func TestPrepareOfAWorkerWithoutPrepare(t *testing.T) {
	client, _ := plugin.TestPluginGRPCConn(t, false, map[string]plugin.Plugin{PluginName: &legacyPlugin{GRPCPlugin{Impl: &preparingRunner{}}}})
	t.Cleanup(func() { client.Close() })
	raw, err := client.Dispense(PluginName)
	if err != nil {
		t.Fatal(err)
	}
	c := raw.(*GRPCClient)
	if err := c.Prepare(context.Background()); err != nil {
		t.Fatalf("Prepare of a worker without it = %v, want nil", err)
	}
	if id := c.hostID(); id != 0 {
		t.Fatalf("host service %d kept after a Prepare nobody answered; the broker would forget it", id)
	}
	if last := runAgent(t, c, "a"); last.Output != "answered" {
		t.Fatalf("agent job ended %+v", last)
	}
}

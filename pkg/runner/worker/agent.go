package worker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// Reasons an agent job is cancelled without an explicit Cancel.
const (
	reasonEngineGone   = "engine went away"
	reasonStreamClosed = "engine stream closed"
)

// agentJob is a running agent job: the child session's loop, run in this process.
type agentJob struct {
	output *outputLog
	done   chan struct{}
	cancel context.CancelCauseFunc

	mu        sync.Mutex
	stopped   bool
	stopCause string
}

func (j *agentJob) ended() <-chan struct{} { return j.done }

func (j *agentJob) log() *outputLog { return j.output }

// stop cancels the loop: the model call in flight is aborted, a running tool gets the
// cancellation, and queued tools are answered "interrupted".
func (j *agentJob) stop(reason string) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.stopped {
		return false
	}
	j.stopped, j.stopCause = true, reason
	j.cancel(errors.New(reason))
	return true
}

func (j *agentJob) stopReason() (string, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.stopCause, j.stopped
}

// send: follow-up prompts to a running subagent are not supported yet (the spec makes
// them optional for a runner).
func (j *agentJob) send(string) error {
	return fmt.Errorf("agent jobs take no input: %w", runnerapi.ErrUnsupportedJob)
}

// jobEvents numbers and serializes a job's events: the loop's text deltas and the tool
// events of a batch's parallel calls reach emit one at a time, in the order they
// happened. After emit fails (the engine's stream is gone) nothing more is sent and the
// job is stopped.
type jobEvents struct {
	jobID  string
	emit   func(runnerapi.Event) error
	onFail func()

	mu  sync.Mutex
	seq uint64
	err error
}

func (e *jobEvents) send(ev runnerapi.Event) error {
	e.mu.Lock()
	if e.err != nil {
		e.mu.Unlock()
		return e.err
	}
	e.seq++
	ev.JobID, ev.Sequence = e.jobID, e.seq
	err := e.emit(ev)
	e.err = err
	e.mu.Unlock()
	if err != nil && e.onFail != nil {
		e.onFail()
	}
	return err
}

func (e *jobEvents) failed() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.err
}

// startAgent runs an agent job: the child session's loop (package agent) over the
// built-in tools in the job's cwd, with every model call and every tool decision made
// by job.Host. See the package doc for the guarantees.
func (w *Worker) startAgent(ctx context.Context, job runnerapi.Job, emit func(runnerapi.Event) error) error {
	if job.Host == nil {
		return fmt.Errorf("job %s: %w", job.ID, ErrNoHost)
	}
	spec := job.Agent
	cwd := spec.Cwd
	if cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return fmt.Errorf("job %s: no cwd given and the worker's is unknown: %w", job.ID, err)
		}
		cwd = wd
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	j := &agentJob{output: newOutputLog(defaultLogCap), done: make(chan struct{}), cancel: cancel}
	events := &jobEvents{jobID: job.ID, emit: emit, onFail: func() { j.stop(reasonStreamClosed) }}
	tools, err := agentTools(cwd, spec.AdditionalDirs, spec.Tools, job.Host, events, job.Sandbox, spec.SearchExclude)
	if err != nil {
		return fmt.Errorf("job %s: tools: %w", job.ID, err)
	}
	loop, err := agent.New(agent.Config{
		Provider: hostProvider{host: job.Host}, Model: spec.Model, SystemPrompt: spec.SystemPrompt,
		Tools: tools, AgentName: spec.AgentType, ConversationID: job.ID,
		// 0 means no cap, as for a session (session.Config.MaxTurns).
		MaxRounds: agent.Rounds(max(spec.MaxTurns, 0)),
	})
	if err != nil {
		return fmt.Errorf("job %s: %w", job.ID, err)
	}
	if err := w.register(job.ID, j); err != nil {
		return err
	}
	defer w.retire(job.ID, j)

	if err := events.send(runnerapi.Event{Kind: runnerapi.EventStarted, PID: os.Getpid()}); err != nil {
		return err
	}
	w.log.Info("agent job started", "job_id", job.ID, "agent_type", spec.AgentType, "cwd", cwd)
	res, err := loop.Run(runCtx, spec.Prompt, agent.RunOptions{
		ExecutionID: job.ID,
		OnTextDelta: func(d string) {
			_, _ = j.output.Write([]byte(d))
			_ = events.send(runnerapi.Event{Kind: runnerapi.EventTextDelta, Text: d})
		},
	})
	if err != nil { // misuse only: a second Run of the same loop
		return fmt.Errorf("job %s: %w", job.ID, err)
	}
	if err := events.failed(); err != nil {
		return err
	}
	term := agentTerminal(res, runCtx, j)
	w.log.Info("agent job ended", "job_id", job.ID, "outcome", term.Kind.String(), "rounds", res.Rounds)
	return events.send(term)
}

// agentTerminal maps how the loop ended onto the job's terminal event.
func agentTerminal(res agent.Result, ctx context.Context, j *agentJob) runnerapi.Event {
	if res.Interrupted || ctx.Err() != nil {
		reason, stopped := j.stopReason()
		if !stopped {
			reason = reasonEngineGone
		}
		return runnerapi.Event{Kind: runnerapi.EventCancelled, Reason: reason}
	}
	switch res.StopReason {
	case agent.StopProviderError:
		e := llm.FromUnknown(res.Err)
		return runnerapi.Event{Kind: runnerapi.EventFailed, Error: res.Err.Error(), Category: string(e.Category),
			Recoverable: e.Recoverable, Output: res.Response}
	case agent.StopContextLimit:
		return runnerapi.Event{Kind: runnerapi.EventFailed, Error: res.Response, Category: string(agent.StopContextLimit),
			Output: res.Response}
	}
	// Completed, or ended by the round cap or unknown tools with a forced summary: the
	// summary is the answer.
	return runnerapi.Event{Kind: runnerapi.EventCompleted, Output: res.Response}
}

// register adds a starting job under id, refusing an id still running.
func (w *Worker) register(id string, j tableJob) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.checkIDFree(id); err != nil {
		return err
	}
	w.jobs.add(id, j)
	return nil
}

// retire records that an agent job ended, then closes its done channel.
func (w *Worker) retire(id string, j *agentJob) {
	w.mu.Lock()
	w.jobs.retire(id, j)
	w.mu.Unlock()
	close(j.done)
}

// hostProvider is the llm.Provider of an agent job: every model call goes to the engine,
// which holds the provider and its credentials.
type hostProvider struct {
	host runnerapi.Host
}

func (p hostProvider) Name() string { return "engine" }

func (p hostProvider) Chat(ctx context.Context, req llm.ChatRequest, cb llm.Callbacks) (llm.ChatResponse, error) {
	return p.host.Chat(ctx, req, cb)
}

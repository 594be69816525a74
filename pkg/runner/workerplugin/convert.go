package workerplugin

import (
	"errors"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
	"time"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
)

func jobToProto(job runnerapi.Job) (*robotav1.StartRequest, error) {
	req := &robotav1.StartRequest{JobId: job.ID}
	switch {
	case job.Agent != nil && job.Process != nil:
		return nil, errors.New("workerplugin: a job is either an agent or a process, not both")
	case job.Agent != nil:
		a := job.Agent
		req.Job = &robotav1.StartRequest_Agent{Agent: &robotav1.AgentJob{
			AgentType: a.AgentType, Prompt: a.Prompt, SystemPrompt: a.SystemPrompt, Model: a.Model,
			Cwd: a.Cwd, Tools: a.Tools, MaxTurns: int32(a.MaxTurns), Isolation: a.Isolation,
			AdditionalDirectories: a.AdditionalDirs, SearchExclude: a.SearchExclude,
		}}
	case job.Process != nil:
		p := job.Process
		req.Job = &robotav1.StartRequest_Process{Process: &robotav1.ProcessJob{
			Command: p.Command, Cwd: p.Cwd, Env: p.Env, TimeoutMs: p.Timeout.Milliseconds(),
		}}
	default:
		return nil, errors.New("workerplugin: job has neither an agent nor a process")
	}
	req.Sandbox = sandboxToProto(job.Sandbox)
	return req, nil
}

// sandboxToProto is a job's (or one call's) command sandbox on the wire; nil is nil.
func sandboxToProto(sb *runnerapi.Sandbox) *robotav1.CommandSandbox {
	if sb == nil {
		return nil
	}
	out := &robotav1.CommandSandbox{Hide: sb.Hide, ReadOnly: sb.ReadOnly, ExcludedCommands: sb.ExcludedCommands}
	if n := sb.Network; n != nil {
		out.Network = &robotav1.SandboxNetwork{Allow: n.Allow, Deny: n.Deny,
			HttpProxyPort: int32(n.HTTPProxyPort), SocksProxyPort: int32(n.SOCKSProxyPort)}
	}
	return out
}

// sandboxFromProto is sandboxToProto's inverse.
func sandboxFromProto(sb *robotav1.CommandSandbox) *runnerapi.Sandbox {
	if sb == nil {
		return nil
	}
	out := &runnerapi.Sandbox{Hide: sb.GetHide(), ReadOnly: sb.GetReadOnly(), ExcludedCommands: sb.GetExcludedCommands()}
	if n := sb.GetNetwork(); n != nil {
		out.Network = &runnerapi.SandboxNetwork{Allow: n.GetAllow(), Deny: n.GetDeny(),
			HTTPProxyPort: int(n.GetHttpProxyPort()), SOCKSProxyPort: int(n.GetSocksProxyPort())}
	}
	return out
}

func jobFromProto(req *robotav1.StartRequest) (runnerapi.Job, error) {
	job := runnerapi.Job{ID: req.GetJobId()}
	if job.ID == "" {
		return runnerapi.Job{}, errors.New("job_id is required")
	}
	switch j := req.GetJob().(type) {
	case *robotav1.StartRequest_Agent:
		a := j.Agent
		job.Agent = &runnerapi.AgentJob{
			AgentType: a.GetAgentType(), Prompt: a.GetPrompt(), SystemPrompt: a.GetSystemPrompt(),
			Model: a.GetModel(), Cwd: a.GetCwd(), Tools: a.GetTools(), MaxTurns: int(a.GetMaxTurns()),
			Isolation: a.GetIsolation(), AdditionalDirs: a.GetAdditionalDirectories(),
			SearchExclude: a.GetSearchExclude(),
		}
	case *robotav1.StartRequest_Process:
		p := j.Process
		if p.GetCommand() == "" {
			return runnerapi.Job{}, errors.New("process.command is required")
		}
		job.Process = &runnerapi.ProcessJob{
			Command: p.GetCommand(), Cwd: p.GetCwd(), Env: p.GetEnv(),
			Timeout: time.Duration(p.GetTimeoutMs()) * time.Millisecond,
		}
	default:
		return runnerapi.Job{}, errors.New("job must set agent or process")
	}
	job.Sandbox = sandboxFromProto(req.GetSandbox())
	return job, nil
}

func eventToProto(ev runnerapi.Event) *robotav1.JobEvent {
	out := &robotav1.JobEvent{JobId: ev.JobID, Sequence: ev.Sequence}
	switch ev.Kind {
	case runnerapi.EventStarted:
		out.Event = &robotav1.JobEvent_Started{Started: &robotav1.JobStarted{Pid: int32(ev.PID)}}
	case runnerapi.EventTextDelta:
		out.Event = &robotav1.JobEvent_TextDelta{TextDelta: ev.Text}
	case runnerapi.EventToolStart:
		out.Event = &robotav1.JobEvent_ToolStart{ToolStart: toolToProto(ev.Tool, true)}
	case runnerapi.EventToolEnd:
		out.Event = &robotav1.JobEvent_ToolEnd{ToolEnd: toolToProto(ev.Tool, false)}
	case runnerapi.EventCompleted:
		out.Event = &robotav1.JobEvent_Completed{Completed: &robotav1.JobCompleted{
			Output: ev.Output, ExitCode: int32(ev.ExitCode)}}
	case runnerapi.EventFailed:
		out.Event = &robotav1.JobEvent_Failed{Failed: &robotav1.JobFailed{
			Error: ev.Error, Category: ev.Category, Recoverable: ev.Recoverable, ExitCode: int32(ev.ExitCode)}}
	case runnerapi.EventCancelled:
		out.Event = &robotav1.JobEvent_Cancelled{Cancelled: &robotav1.JobCancelled{Reason: ev.Reason}}
	}
	return out
}

func eventFromProto(in *robotav1.JobEvent) runnerapi.Event {
	ev := runnerapi.Event{JobID: in.GetJobId(), Sequence: in.GetSequence()}
	switch e := in.GetEvent().(type) {
	case *robotav1.JobEvent_Started:
		ev.Kind, ev.PID = runnerapi.EventStarted, int(e.Started.GetPid())
	case *robotav1.JobEvent_TextDelta:
		ev.Kind, ev.Text = runnerapi.EventTextDelta, e.TextDelta
	case *robotav1.JobEvent_ToolStart:
		ev.Kind, ev.Tool = runnerapi.EventToolStart, toolFromProto(e.ToolStart)
	case *robotav1.JobEvent_ToolEnd:
		ev.Kind, ev.Tool = runnerapi.EventToolEnd, toolFromProto(e.ToolEnd)
	case *robotav1.JobEvent_Completed:
		ev.Kind, ev.Output, ev.ExitCode = runnerapi.EventCompleted, e.Completed.GetOutput(), int(e.Completed.GetExitCode())
	case *robotav1.JobEvent_Failed:
		ev.Kind, ev.Error, ev.Category = runnerapi.EventFailed, e.Failed.GetError(), e.Failed.GetCategory()
		ev.Recoverable, ev.ExitCode = e.Failed.GetRecoverable(), int(e.Failed.GetExitCode())
	case *robotav1.JobEvent_Cancelled:
		ev.Kind, ev.Reason = runnerapi.EventCancelled, e.Cancelled.GetReason()
	}
	return ev
}

func toolToProto(t *runnerapi.ToolProgress, running bool) *robotav1.ToolState {
	if t == nil {
		return &robotav1.ToolState{IsRunning: running}
	}
	return &robotav1.ToolState{
		ToolCallId: t.CallID, ToolName: t.Name, FirstArg: t.FirstArg, Error: t.Error, IsRunning: running,
	}
}

func toolFromProto(t *robotav1.ToolState) *runnerapi.ToolProgress {
	return &runnerapi.ToolProgress{CallID: t.GetToolCallId(), Name: t.GetToolName(), FirstArg: t.GetFirstArg(), Error: t.GetError()}
}

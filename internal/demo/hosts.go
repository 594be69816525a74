package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
	"github.com/robota-sdk/robota-go/internal/engineproc"
)

const hostsScript = `name: demo-hosts
turns:
  - text: "Running the build on a host agent."
    toolCalls:
      - {id: toolu_build, name: Bash, input: {command: "sleep 3; echo build finished", run_in_background: true}}
  - text: "The build runs in the background."
`

// runHosts shows workers across hosts (DESIGN.md decision 5): robota-engine with an
// embedded NATS JetStream server, two host agents, a background command dispatched to
// one of them, that host killed, and the command run again on the other.
func runHosts(bin string, first int) error {
	tmp, err := os.MkdirTemp("", "robota-demo-hosts-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	step(first, "Start robota-engine with an embedded NATS server (JetStream), dispatching to host agents only")
	eng, err := engineproc.Start(bin, filepath.Join(tmp, "engine.sock"), nil, "--state-dir", filepath.Join(tmp, "state"),
		"--nats", "embedded", "--nats-listen", "127.0.0.1:0", "--dispatch", "remote", "--nats-job-timeout", "2s", "--workers", "0", "--nats-hosts", "alpha,beta")
	if err != nil {
		return err
	}
	defer eng.Kill()
	ns, _, err := eng.WaitMsg(ctx, 0, "embedded NATS server listening")
	if err != nil {
		return err
	}
	if _, _, err := eng.WaitMsg(ctx, 0, "engine listening"); err != nil {
		return err
	}
	url, _ := ns["url"].(string)
	credsDir, _ := ns["host_creds_dir"].(string)
	say("NATS at %s; each host's own credential is %s/NAME.creds (mode 0600)", url, credsDir)

	step(first+1, "Start two host agents: robota-worker host --nats URL --creds NAME.creds (its name and its user)")
	hosts := map[string]*engineproc.Proc{}
	for _, name := range []string{"alpha", "beta"} {
		h, err := engineproc.StartHost(bin, url, name, nil, "--creds", filepath.Join(credsDir, name+".creds"), "--job-timeout", "2s")
		if err != nil {
			return err
		}
		defer h.KillGroup()
		if _, _, err := h.WaitMsg(ctx, 0, "host agent taking jobs"); err != nil {
			return err
		}
		hosts[name] = h
		say("host agent %s: pid %d, pulling from the work-queue stream", name, h.Cmd.Process.Pid)
	}

	step(first+2, "A session's background command goes on the job stream; a host agent takes it")
	conn, err := eng.Dial()
	if err != nil {
		return err
	}
	defer conn.Close()
	c := robotav1.NewEngineServiceClient(conn)
	script := filepath.Join(tmp, "hosts.yaml")
	if err := os.WriteFile(script, []byte(hostsScript), 0o644); err != nil {
		return err
	}
	created, err := c.CreateSession(ctx, &robotav1.CreateSessionRequest{Cwd: tmp, Provider: "script", Script: script,
		PermissionMode: robotav1.PermissionMode_PERMISSION_MODE_BYPASS_PERMISSIONS})
	if err != nil {
		return err
	}
	id := created.GetSession().GetSessionId()
	stream, err := c.Submit(ctx, &robotav1.SubmitRequest{SessionId: id, Prompt: "build it"})
	if err != nil {
		return err
	}
	for {
		if _, err := stream.Recv(); err != nil {
			break
		}
	}
	task := func(match func(*robotav1.BackgroundTaskState) bool) (*robotav1.BackgroundTaskState, error) {
		for {
			list, err := c.ListBackgroundTasks(ctx, &robotav1.ListBackgroundTasksRequest{SessionId: id})
			if err != nil {
				return nil, err
			}
			for _, t := range list.GetTasks() {
				if match(t) {
					return t, nil
				}
			}
			if ctx.Err() != nil {
				return nil, fmt.Errorf("the task did not reach the expected state: %v", list.GetTasks())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	first1, err := task(func(t *robotav1.BackgroundTaskState) bool { return t.GetHost() != "" && t.GetPid() != 0 })
	if err != nil {
		return err
	}
	say("task %s (%q) runs on host %s, attempt %d, pid %d there", first1.GetTaskId(), first1.GetLabel(),
		first1.GetHost(), first1.GetAttempt(), first1.GetPid())

	step(first+3, "Kill host "+first1.GetHost()+" (its agent and its workers, SIGKILL to the process group)")
	killed := time.Now()
	hosts[first1.GetHost()].KillGroup()
	moved, err := task(func(t *robotav1.BackgroundTaskState) bool {
		return t.GetTaskId() == first1.GetTaskId() && t.GetAttempt() > first1.GetAttempt()
	})
	if err != nil {
		return err
	}
	say("%.1fs later (heartbeat timeout 2s) the same task runs on host %s, attempt %d, pid %d",
		time.Since(killed).Seconds(), moved.GetHost(), moved.GetAttempt(), moved.GetPid())
	done, err := task(func(t *robotav1.BackgroundTaskState) bool {
		return t.GetTaskId() == first1.GetTaskId() && t.GetStatus() == robotav1.BackgroundTaskStatus_BACKGROUND_TASK_STATUS_COMPLETED
	})
	if err != nil {
		return err
	}
	log, err := c.ReadBackgroundTaskLog(ctx, &robotav1.ReadBackgroundTaskLogRequest{SessionId: id, TaskId: done.GetTaskId()})
	if err != nil {
		return err
	}
	say("completed once, on %s (attempt %d); its log (the final attempt's): %q", done.GetHost(), done.GetAttempt(), log.GetData())
	return nil
}

package interactive_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	. "github.com/robota-sdk/robota-go/pkg/engine/interactive"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive/commands"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
	"github.com/robota-sdk/robota-go/pkg/runner/jobgroups"
	"github.com/robota-sdk/robota-go/pkg/runner/worker"
)

// jobsScript: a subagent whose prompt says "fast" answers at once; one whose prompt says
// "slow" streams a line and then hangs until it is cancelled.
const jobsScript = `
turns:
  - text: "unused"
    repeat: true
agents:
  general-purpose:
    - when: {lastUserContains: "fast"}
      text: "fast done"
      repeat: true
    - when: {lastUserContains: "slow"}
      text: "slow started"
      hang: true
      repeat: true
`

func jobsSession(t *testing.T, dir string, opts Options) *InteractiveSession {
	t.Helper()
	opts.Cwd, opts.PermissionMode, opts.Runner = dir, "bypassPermissions", worker.New(nil)
	return newTestSession(t, scriptProvider(t, jobsScript), opts)
}

func mustRun(t *testing.T, s *InteractiveSession, line string) commands.Result {
	t.Helper()
	name, args, _ := commands.Split(line)
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	res, err := s.ExecuteCommand(ctx, name, args)
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return res
}

func strs(v any) []string {
	switch l := v.(type) {
	case []string:
		return l
	}
	return nil
}

// groupEvents collects a group's events from a subscription until one holds a result
// for each of its n tasks.
func groupEvents(t *testing.T, sub *Subscription, group string, n int) []string {
	t.Helper()
	var got []string
	until(t, sub, func(ev Event) bool {
		if ev.Type != EventBackgroundJobGroup || ev.Group.Group.ID != group {
			return false
		}
		got = append(got, strings.TrimPrefix(string(ev.Group.Type), "background_job_group_")+":"+string(ev.Group.Group.Status))
		return len(ev.Group.Group.Results) == n
	})
	return got
}

// isSubsequence reports whether got is want with some elements left out: a job that
// ended before its group was made is in the created event, not an updated one.
func isSubsequence(got, want []string) bool {
	i := 0
	for _, w := range want {
		if i < len(got) && got[i] == w {
			i++
		}
	}
	return i == len(got)
}

// /agent parallel under each wait policy: wait_all (the default) and wait_any answer the
// group's summary once the policy is met; --detach and --manual answer the ids at once,
// and /agent wait answers the summary later. Each group's events reach the session's
// subscribers in order.
func TestAgentParallelPolicies(t *testing.T) {
	tests := []struct {
		name, args string
		policy     jobgroups.Policy
		// immediate: the command answers before the jobs end (ids, no summary).
		immediate bool
		// summary is the header the command (or the later wait) answers.
		summary string
		// stop is the label of a job to stop after the command.
		stop   string
		events []string
	}{
		{name: "wait_all", args: `a:"fast one" b:"fast two"`, policy: jobgroups.WaitAll,
			summary: "(wait_all): completed (2/2 completed, 0 failed, 0 cancelled, 0 pending)",
			events:  []string{"created:running", "updated:running", "completed:completed"}},
		{name: "wait_any", args: `--any a:"fast one" b:"slow one"`, policy: jobgroups.WaitAny,
			summary: "(wait_any): completed (1/2 completed, 0 failed, 0 cancelled, 1 pending)", stop: "b",
			events: []string{"created:running", "completed:completed", "updated:completed"}},
		{name: "detached", args: `--detach a:"fast one" b:"fast two"`, policy: jobgroups.Detached, immediate: true,
			summary: "(detached): completed (2/2 completed, 0 failed, 0 cancelled, 0 pending)",
			events:  []string{"created:running", "updated:running", "completed:completed"}},
		{name: "manual", args: `--manual a:"fast one" b:"slow one"`, policy: jobgroups.Manual, immediate: true, stop: "b",
			summary: "(manual): running (1/2 completed, 0 failed, 1 cancelled, 0 pending)",
			events:  []string{"created:running", "updated:running", "updated:running"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := jobsSession(t, t.TempDir(), Options{})
			sub := s.Subscribe()
			res := mustRun(t, s, "/agent parallel "+tc.args)
			if !res.Success {
				t.Fatalf("/agent parallel: %s", res.Message)
			}
			gid, _ := res.Data["groupId"].(string)
			ids := strs(res.Data["agentIds"])
			if gid != "group_1" || len(ids) != 2 || res.Data["waitPolicy"] != string(tc.policy) {
				t.Fatalf("data %v", res.Data)
			}
			if tc.immediate != strings.HasPrefix(res.Message, "Started agent jobs") {
				t.Fatalf("answered %q", res.Message)
			}
			if tc.stop != "" {
				if r := mustRun(t, s, "/agent stop "+ids[1]); !r.Success {
					t.Fatalf("/agent stop: %s", r.Message)
				}
			}
			if tc.immediate {
				res = mustRun(t, s, "/agent wait "+gid)
			}
			if !res.Success || !strings.Contains(strings.SplitN(res.Message, "\n", 2)[0], tc.summary) {
				t.Fatalf("summary %q, want %q", res.Message, tc.summary)
			}
			if !strings.Contains(res.Message, "- a ("+ids[0]+"): completed - fast done") {
				t.Fatalf("summary lacks job a's line: %q", res.Message)
			}
			got := groupEvents(t, sub, gid, 2)
			if !isSubsequence(got, tc.events) || got[0] != tc.events[0] || got[len(got)-1] != tc.events[len(tc.events)-1] {
				t.Fatalf("group events %v, want %v (an update may be missing)", got, tc.events)
			}
			groups := s.ListBackgroundJobGroups()
			if len(groups) != 1 || groups[0].WaitPolicy != tc.policy || groups[0].ParentSessionID != s.ID() {
				t.Fatalf("groups %+v", groups)
			}
		})
	}
}

// /background: a task's log is read (and an offset past it), a running task is
// cancelled, an ended one closed; the wrong order and unknown ids are refused with a
// message saying what to do. /background group create groups running tasks.
func TestBackgroundCommandsControlTasks(t *testing.T) {
	s := jobsSession(t, t.TempDir(), Options{})
	run := mustRun(t, s, `/agent slow work please`)
	id, _ := run.Data["agentId"].(string)
	if !run.Success || id == "" || run.Data["agentType"] != "general-purpose" {
		t.Fatalf("/agent PROMPT: %v %v", run.Message, run.Data)
	}
	fast := mustRun(t, s, `/agent run fast thing`)
	fid, _ := fast.Data["agentId"].(string)
	g := mustRun(t, s, "/background group create wait_any "+id+" "+fid+" --label pair")
	if !g.Success || g.Data["groupId"] != "group_1" {
		t.Fatalf("group create: %s", g.Message)
	}
	if w := mustRun(t, s, "/background wait group_1"); !w.Success || !strings.Contains(w.Message, "(wait_any): completed") {
		t.Fatalf("wait: %s", w.Message)
	}
	deadline := time.Now().Add(testWait)
	for {
		r := mustRun(t, s, "/background read "+id)
		if strings.Contains(r.Message, "slow started") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/background read never showed the job's text: %q", r.Message)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// An offset reads from that byte on; one past the log reads nothing; a bad one is refused.
	whole := mustRun(t, s, "/background read "+id)
	text, _ := whole.Data["text"].(string)
	at := strings.Index(text, "slow started")
	if r := mustRun(t, s, fmt.Sprintf("/background read %s %d", id, at)); !r.Success || !strings.HasPrefix(r.Data["text"].(string), "slow started") ||
		r.Data["offset"] != int64(at) {
		t.Fatalf("read at offset %d: %v %q", at, r.Data, r.Message)
	}
	if r := mustRun(t, s, fmt.Sprintf("/background read %s %d", id, len(text)+100)); !r.Success || r.Data["text"] != "" {
		t.Fatalf("read past the log: %v %q", r.Data, r.Message)
	}
	if r := mustRun(t, s, "/background read "+id+" -3"); r.Success || !strings.Contains(r.Message, "is not a byte offset") {
		t.Fatalf("negative offset: %v %q", r.Success, r.Message)
	}
	// /agent read is the same reader.
	if r := mustRun(t, s, "/agent read "+id); !r.Success || !strings.Contains(r.Message, "slow started") || r.Data["taskId"] != id {
		t.Fatalf("/agent read: %v %q", r.Data, r.Message)
	}
	if r := mustRun(t, s, "/background close "+id); r.Success || !strings.Contains(r.Message, "cancel it first") {
		t.Fatalf("close of a running task: %v %q", r.Success, r.Message)
	}
	if r := mustRun(t, s, "/background cancel "+id+" enough"); !r.Success || r.Data["status"] != "cancelled" {
		t.Fatalf("cancel: %v %q", r.Data, r.Message)
	}
	if r := mustRun(t, s, "/background cancel "+id); r.Success || !strings.Contains(r.Message, "already ended") {
		t.Fatalf("second cancel: %q", r.Message)
	}
	if r := mustRun(t, s, "/background close "+id); !r.Success {
		t.Fatalf("close: %q", r.Message)
	}
	// The group sees the cancel once the session's event pump has passed it on.
	waitFor(t, func() bool { g, _ := s.GetBackgroundJobGroup("group_1"); return len(g.Results) == 2 })
	list := mustRun(t, s, "/background")
	if strings.Contains(list.Message, id) || !strings.Contains(list.Message, fid) || !strings.Contains(list.Message, "group_1  wait_any  completed  2/2 ended  pair") {
		t.Fatalf("list after close: %q", list.Message)
	}
	for _, line := range []string{"/background read nope", "/background cancel nope", "/agent close nope"} {
		if r := mustRun(t, s, line); r.Success || !strings.Contains(r.Message, "No background task nope") {
			t.Errorf("%s: %v %q", line, r.Success, r.Message)
		}
	}
	for _, line := range []string{"/agent wait group_9", "/background group group_9"} {
		if r := mustRun(t, s, line); r.Success || !strings.Contains(r.Message, "unknown background job group") {
			t.Errorf("%s: %q", line, r.Message)
		}
	}
	if r := mustRun(t, s, "/agent parallel a:fast b=nosuchagent:fast"); r.Success || !strings.Contains(r.Message, "Unknown agent type: nosuchagent") {
		t.Errorf("unknown agent type: %q", r.Message)
	}
	if r := mustRun(t, s, "/background frob"); r.Success || !strings.Contains(r.Message, "Usage: /background") {
		t.Errorf("unknown subcommand: %q", r.Message)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(testWait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in time")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A session's groups and their events are saved with its record; a resumed session
// lists them, waits on them at once (their tasks ran in the earlier run), and numbers
// its new groups after them.
func TestJobGroupsSurviveResume(t *testing.T) {
	dir := t.TempDir()
	s := jobsSession(t, dir, Options{})
	res := mustRun(t, s, `/agent parallel a:"fast one" b:"fast two"`)
	if !res.Success {
		t.Fatal(res.Message)
	}
	id := s.ID()
	if err := s.Close(context.Background(), "other"); err != nil {
		t.Fatal(err)
	}
	rec, err := store.NewFileStore(store.ProjectDir(dir), store.Options{}).Load(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	// created, an update unless a job ended before the group was made, completed.
	if first := len(rec.BackgroundJobGroupEvents); len(rec.BackgroundJobGroups) != 1 || first < 2 || first > 3 {
		t.Fatalf("record holds %d groups, %d group events; want 1 and 2 or 3", len(rec.BackgroundJobGroups), first)
	}
	var saved jobgroups.Group
	if err := json.Unmarshal(rec.BackgroundJobGroups[0], &saved); err != nil || saved.ID != "group_1" || saved.Status != jobgroups.StatusCompleted || len(saved.Results) != 2 {
		t.Fatalf("saved group %+v (%v)", saved, err)
	}

	r := jobsSession(t, dir, Options{Resume: id})
	if w := mustRun(t, r, "/agent wait group_1"); !w.Success || !strings.Contains(w.Message, "(2/2 completed") {
		t.Fatalf("wait on the restored group: %q", w.Message)
	}
	second := mustRun(t, r, `/agent parallel --detach c:"fast three"`)
	if second.Data["groupId"] != "group_2" {
		t.Fatalf("the resumed session's new group: %v", second.Data)
	}
	mustRun(t, r, "/agent wait group_2")
	if err := r.Close(context.Background(), "other"); err != nil {
		t.Fatal(err)
	}
	rec, err = store.NewFileStore(store.ProjectDir(dir), store.Options{}).Load(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	n := len(rec.BackgroundJobGroupEvents)
	var last jobgroups.Event
	if n > 0 {
		_ = json.Unmarshal(rec.BackgroundJobGroupEvents[n-1], &last)
	}
	if len(rec.BackgroundJobGroups) != 2 || n < 4 || last.Type != jobgroups.EventCompleted || last.Group.ID != "group_2" {
		t.Fatalf("after the second run the record holds %d groups, %d events (last %+v); want 2, the first run's 3 and group_2's",
			len(rec.BackgroundJobGroups), n, last)
	}
}

package integration

import (
	"context"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/client"
)

// jobsYAML: a subagent whose prompt says "fast" answers at once; one whose prompt says
// "slow" streams a line and hangs until it is cancelled.
const jobsYAML = `
turns:
  - text: "the model was asked"
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

// groupLines are the stream-json system/background_job_group lines of out, as
// "event:status:results".
func groupLines(lines []map[string]any) []string {
	var out []string
	for _, l := range lines {
		if l["type"] != "system" || l["subtype"] != "background_job_group" {
			continue
		}
		g, _ := l["group"].(map[string]any)
		results, _ := g["results"].([]any)
		out = append(out, l["event"].(string)+":"+g["status"].(string)+":"+string(rune('0'+len(results))))
	}
	return out
}

// groupLifecycleOK reports whether lines (groupLines) are one group's life: created while
// running, updated while running with one more result each time, completed with n. A task
// that ended before the group was made is already among created's results (jobgroups
// Create), so how many created carries depends on timing; the shape does not.
func groupLifecycleOK(lines []string, n int) bool {
	if len(lines) < 2 {
		return false
	}
	prev := -1
	for i, l := range lines {
		want := "updated:running"
		switch i {
		case 0:
			want = "created:running"
		case len(lines) - 1:
			want = "completed:completed"
		}
		at := strings.LastIndexByte(l, ':')
		count, err := strconv.Atoi(l[at+1:])
		if at < 0 || err != nil || l[:at] != want || count <= prev {
			return false
		}
		prev = count
	}
	return prev == n
}

func resultLine(t *testing.T, lines []map[string]any) map[string]any {
	t.Helper()
	for i := len(lines) - 1; i >= 0; i-- {
		if lines[i]["type"] == "result" {
			return lines[i]
		}
	}
	t.Fatalf("no result line in %v", lines)
	return nil
}

// Issue 28, job groups and /agent in headless: robota -p "/agent parallel ..." runs two
// agents under a wait_all group and answers the group's summary; stream-json shows the
// group's events (system/background_job_group) before the result, and the model is never
// asked. The group is in the session record: a resumed run lists it, and waits on it
// at once. A detached group's jobs end with the run (cancelled), which the next run's
// /agent wait reports; --any answers when the first job ended.
func TestHeadlessAgentParallelAndGroups(t *testing.T) {
	p := newProject(t)
	script := p.writeScript(t, "jobs.yaml", jobsYAML)
	base := []string{"--provider", "script", "--script", script, "--permission-mode", "bypassPermissions"}

	out := p.mustRun(t, append([]string{"-p", `/agent parallel a:"fast one" b:"fast two"`, "--output-format", "stream-json", "--verbose"}, base...)...).Stdout
	lines := jsonLines(t, out)
	res := resultLine(t, lines)
	text, _ := res["result"].(string)
	if res["is_error"] != false || !strings.HasPrefix(text, "Background job group group_1 (wait_all): completed (2/2 completed, 0 failed, 0 cancelled, 0 pending)") ||
		!regexp.MustCompile(`- a \(agent-\w+\): completed - fast done`).MatchString(text) {
		t.Fatalf("/agent parallel result %v", res)
	}
	got := groupLines(lines)
	if !groupLifecycleOK(got, 2) {
		t.Fatalf("group lines %v, want created … completed with 2 results\n%s", got, out)
	}
	for _, l := range lines {
		if l["type"] == "assistant" {
			t.Fatalf("the model was asked, or a subagent's line was printed as the model's: %v", l)
		}
	}
	id, _ := res["session_id"].(string)

	listed := resultObject(t, p.mustRun(t, append([]string{"-p", "/background groups", "--resume", id, "--output-format", "json"}, base...)...).Stdout)
	if s, _ := listed["result"].(string); !strings.Contains(s, "group_1  wait_all  completed  2/2 ended  agent parallel") {
		t.Fatalf("/background groups after resume: %v", listed)
	}
	waited := resultObject(t, p.mustRun(t, append([]string{"-p", "/agent wait group_1", "--resume", id, "--output-format", "json"}, base...)...).Stdout)
	if s, _ := waited["result"].(string); !strings.HasPrefix(s, "Background job group group_1 (wait_all): completed (2/2") {
		t.Fatalf("/agent wait group_1 after resume: %v", waited)
	}

	start := time.Now()
	detached := resultObject(t, p.mustRun(t, append([]string{"-p", `/agent parallel --detach c:"slow work"`, "--resume", id, "--output-format", "json"}, base...)...).Stdout)
	if s, _ := detached["result"].(string); !strings.HasPrefix(s, "Started agent jobs (group group_2, detached):") || time.Since(start) > runTimeout/2 {
		t.Fatalf("--detach: %v (after %s)", detached, time.Since(start))
	}
	later := resultObject(t, p.mustRun(t, append([]string{"-p", "/agent wait group_2", "--resume", id, "--output-format", "json"}, base...)...).Stdout)
	if s, _ := later["result"].(string); !strings.HasPrefix(s, "Background job group group_2 (detached): completed (0/1 completed, 0 failed, 1 cancelled, 0 pending)") {
		t.Fatalf("the detached group after its run ended: %v", later)
	}

	anyOut := p.mustRun(t, append([]string{"-p", `/agent parallel --any a:"fast one" b:"slow one"`, "--resume", id, "--output-format", "json"}, base...)...).Stdout
	if s, _ := resultObject(t, anyOut)["result"].(string); !strings.HasPrefix(s, "Background job group group_3 (wait_any): completed (1/2 completed, 0 failed, 0 cancelled, 1 pending)") {
		t.Fatalf("--any: %s", anyOut)
	}

	b, err := os.ReadFile(p.recordPath(id))
	if err != nil {
		t.Fatal(err)
	}
	raw := string(b)
	for _, want := range []string{`"backgroundJobGroups"`, `"group_3"`, `"background_job_group_completed"`} {
		if !strings.Contains(raw, want) {
			t.Fatalf("the session record lacks %s", want)
		}
	}
}

// Issue 28, background work from the user's side in headless: over one stream-json
// session (robota --input-format stream-json), /agent starts an agent in the background
// and answers its id at once; /background lists it, /background read reads its log while
// it runs, /background close refuses it while it runs, /agent stop cancels it and
// /background close dismisses it.
func TestHeadlessBackgroundCommandsOverStreamJSON(t *testing.T) {
	p := newProject(t)
	script := p.writeScript(t, "jobs.yaml", jobsYAML)
	ctx, cancel := context.WithTimeout(context.Background(), 2*runTimeout)
	defer cancel()
	cmd := p.command(ctx, "-p", "--input-format", "stream-json", "--output-format", "stream-json", "--verbose",
		"--provider", "script", "--script", script, "--permission-mode", "bypassPermissions")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := newStreamProc(t, stdin, stdout)
	defer func() {
		if t.Failed() {
			t.Logf("stderr: %s", stderr.String())
		}
	}()
	ask := func(line string) string {
		t.Helper()
		s.user(line)
		res := resultLine(t, s.until("the result of "+line, lineType("result")))
		text, _ := res["result"].(string)
		return text
	}
	started := ask("/agent slow work please")
	m := regexp.MustCompile(`Started agent job (agent-\w+) \(general-purpose\)`).FindStringSubmatch(started)
	if m == nil {
		t.Fatalf("/agent answered %q", started)
	}
	agent := m[1]
	if list := ask("/background"); !strings.Contains(list, agent+"  agent  running") {
		t.Fatalf("/background: %q", list)
	}
	deadline := time.Now().Add(runTimeout)
	for {
		if log := ask("/background read " + agent); strings.Contains(log, "slow started") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("/background read never showed the agent's output")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if r := ask("/background close " + agent); !strings.Contains(r, "cancel it first") {
		t.Fatalf("close of a running agent: %q", r)
	}
	if r := ask("/agent stop " + agent); r != "Cancelled task "+agent+"." {
		t.Fatalf("/agent stop: %q", r)
	}
	if r := ask("/background close " + agent); !strings.HasPrefix(r, "Closed task "+agent+" (cancelled)") {
		t.Fatalf("close: %q", r)
	}
	if r := ask("/background"); strings.Contains(r, agent) {
		t.Fatalf("the closed task is still listed: %q", r)
	}
	stdin.Close()
	for range s.lines {
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("robota ended with %v", err)
	}
}

// Issue 28 over robota-engine and pkg/client: ExecuteCommand("/agent parallel --detach
// ...") answers the group at once; the group's events reach Watch; WaitJobGroup answers
// when the policy is met; /agent read, /agent stop and /background close work on its
// agents; CreateJobGroup groups running tasks under wait_any and manual; JobGroups lists
// them all. robota -p --engine "/agent parallel ..." prints the same group lines as the
// in-process run.
func TestEngineJobGroupsAndAgentCommands(t *testing.T) {
	p, addr := engineProject(t)
	script := p.writeScript(t, "jobs.yaml", jobsYAML)
	ctx, cancel := context.WithTimeout(context.Background(), 2*runTimeout)
	defer cancel()
	c, err := client.Dial(addr, client.DialOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	info, err := c.CreateSession(ctx, client.SessionOptions{Cwd: p.Dir, Provider: "script", Script: script, PermissionMode: "bypassPermissions"})
	if err != nil {
		t.Fatal(err)
	}
	id := info.ID
	w, err := c.Watch(ctx, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	groupEvents := make(chan client.Event, 100)
	go func() {
		for {
			e, err := w.Next()
			if err != nil {
				close(groupEvents)
				return
			}
			if e.Type == client.EventBackgroundJobGroup {
				groupEvents <- e
			}
		}
	}()
	exec := func(name, args string) client.CommandResult {
		t.Helper()
		res, err := c.ExecuteCommand(ctx, id, name, args)
		if err != nil {
			t.Fatalf("/%s %s: %v", name, args, err)
		}
		return res
	}

	det := exec("agent", `parallel --detach a:"fast one" b:"slow one"`)
	gid, _ := det.Data["groupId"].(string)
	ids, _ := det.Data["agentIds"].([]any)
	if !det.Success || gid != "group_1" || len(ids) != 2 {
		t.Fatalf("--detach answered %+v", det)
	}
	slow := ids[1].(string)
	if r := exec("agent", "read "+slow); !r.Success {
		t.Fatalf("/agent read: %+v", r)
	}
	if r := exec("agent", "stop "+slow); !r.Success {
		t.Fatalf("/agent stop: %+v", r)
	}
	g, err := c.WaitJobGroup(ctx, id, gid)
	if err != nil || g.Status != "completed" || g.WaitPolicy != "detached" || len(g.Results) != 2 {
		t.Fatalf("WaitJobGroup %+v, %v", g, err)
	}
	var kinds []string
	for len(kinds) == 0 || kinds[len(kinds)-1] != "completed:completed" {
		select {
		case e, ok := <-groupEvents:
			if !ok {
				t.Fatalf("Watch ended; group events so far %v", kinds)
			}
			if e.Group.ID == gid {
				kinds = append(kinds, e.GroupEvent+":"+e.Group.Status)
			}
		case <-ctx.Done():
			t.Fatalf("group events so far %v", kinds)
		}
	}
	if kinds[0] != "created:running" {
		t.Fatalf("Watch group events %v", kinds)
	}
	if r := exec("background", "close "+slow); !r.Success {
		t.Fatalf("/background close: %+v", r)
	}

	// Groups made over running tasks: wait_any answers with the fast one; manual stays
	// running once every task ended.
	run := func(prompt string) string {
		r := exec("agent", prompt)
		s, _ := r.Data["agentId"].(string)
		if s == "" {
			t.Fatalf("/agent %s: %+v", prompt, r)
		}
		return s
	}
	f, sl := run("fast again"), run("slow again")
	anyG, err := c.CreateJobGroup(ctx, id, "wait_any", "any", sl, f)
	if err != nil {
		t.Fatal(err)
	}
	if g, err := c.WaitJobGroup(ctx, id, anyG.ID); err != nil || g.Status != "completed" || len(g.Results) != 1 || g.Results[0].TaskID != f {
		t.Fatalf("wait_any group %+v, %v", g, err)
	}
	man, err := c.CreateJobGroup(ctx, id, "manual", "by hand", sl)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CancelTask(ctx, id, sl, "enough"); err != nil {
		t.Fatal(err)
	}
	if g, err := c.WaitJobGroup(ctx, id, man.ID); err != nil || g.Status != "running" || len(g.Results) != 1 || g.Results[0].Status != "cancelled" {
		t.Fatalf("manual group %+v, %v", g, err)
	}
	all, err := c.JobGroups(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	var policies []string
	for _, g := range all {
		policies = append(policies, g.ID+":"+g.WaitPolicy)
	}
	if want := []string{"group_1:detached", "group_2:wait_any", "group_3:manual"}; !slices.Equal(policies, want) {
		t.Fatalf("JobGroups %v, want %v", policies, want)
	}
	if _, err := c.JobGroup(ctx, id, "group_9"); err == nil {
		t.Fatal("JobGroup of an unknown id did not fail")
	}
	if err := c.CloseSession(ctx, id, "other"); err != nil {
		t.Fatal(err)
	}

	// robota -p --engine prints the group lines the in-process run prints.
	args := []string{"-p", `/agent parallel a:"fast one" b:"fast two"`, "--provider", "script", "--script", script,
		"--permission-mode", "bypassPermissions", "--output-format", "stream-json", "--verbose"}
	local, remote := p.mustRun(t, args...), p.mustRun(t, append(args, "--engine", addr)...)
	lg, rg := groupLines(jsonLines(t, local.Stdout)), groupLines(jsonLines(t, remote.Stdout))
	if !groupLifecycleOK(lg, 2) || !groupLifecycleOK(rg, 2) {
		t.Fatalf("group lines in process %v, --engine %v\n%s", lg, rg, remote.Stdout)
	}
	lr, rr := resultLine(t, jsonLines(t, local.Stdout)), resultLine(t, jsonLines(t, remote.Stdout))
	re := regexp.MustCompile(`agent-\w+`)
	if re.ReplaceAllString(lr["result"].(string), "ID") != re.ReplaceAllString(rr["result"].(string), "ID") {
		t.Fatalf("results differ: in process %q, --engine %q", lr["result"], rr["result"])
	}
}

// Issue 28: the model's batch Agent call (one call with jobs) is a listed job group of
// the session, as /agent parallel's are: stream-json shows it from created to completed
// (wait_all, labelled "Agent batch", its id the batch's groupId), and /background groups
// lists it after a resume; in process and through robota-engine.
func TestHeadlessModelAgentBatchIsAListedGroup(t *testing.T) {
	t.Run("inprocess", func(t *testing.T) { testModelAgentBatchIsAListedGroup(t, newProject(t), nil) })
	t.Run("engine", func(t *testing.T) {
		p, addr := engineProject(t)
		testModelAgentBatchIsAListedGroup(t, p, []string{"--engine", addr})
	})
}

func testModelAgentBatchIsAListedGroup(t *testing.T, p *project, extra []string) {
	script := p.writeScript(t, "batch.yaml", `
turns:
  - when: {lastUserContains: "delegate"}
    toolCalls:
      - id: toolu_batch
        name: Agent
        input:
          jobs:
            - {description: "job one", prompt: "fast one"}
            - {description: "job two", prompt: "fast two"}
  - when: {lastToolResultContains: "fast done"}
    text: "Both done."
agents:
  general-purpose:
    - when: {lastUserContains: "fast"}
      text: "fast done"
      repeat: true
`)
	base := append([]string{"--provider", "script", "--script", script, "--permission-mode", "bypassPermissions"}, extra...)
	out := p.mustRun(t, append([]string{"-p", "delegate", "--output-format", "stream-json", "--verbose"}, base...)...).Stdout
	lines := jsonLines(t, out)
	if got := groupLines(lines); !groupLifecycleOK(got, 2) {
		t.Fatalf("group lines %v, want the batch's group created … completed with 2 results\n%s", got, out)
	}
	for _, l := range lines {
		if l["type"] == "system" && l["subtype"] == "background_job_group" {
			if g, _ := l["group"].(map[string]any); g["group_id"] != "group_1" || g["label"] != "Agent batch" || g["wait_policy"] != "wait_all" {
				t.Fatalf("batch group %v, want group_1, wait_all, Agent batch", g)
			}
		}
	}
	if !strings.Contains(out, "group_1") || !strings.Contains(out, `"tool_use_id":"toolu_batch"`) {
		t.Fatalf("the batch's tool result does not name its group group_1:\n%s", out)
	}
	res := resultLine(t, lines)
	if res["result"] != "Both done." {
		t.Fatalf("result %v", res)
	}
	id, _ := res["session_id"].(string)
	listed := resultObject(t, p.mustRun(t, append([]string{"-p", "/background groups", "--resume", id, "--output-format", "json"}, base...)...).Stdout)
	if s, _ := listed["result"].(string); !strings.Contains(s, "group_1  wait_all  completed  2/2 ended  Agent batch") {
		t.Fatalf("/background groups after resume: %v", listed)
	}
}

package interactive

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive/commands"
	"github.com/robota-sdk/robota-go/pkg/runner/jobgroups"
	"github.com/robota-sdk/robota-go/pkg/runner/tasks"
)

// The user's side of background work (the spec's /background system command and the
// /agent command module): list, read, cancel and close tasks, start agents in the
// background, run several in parallel under a job group, and wait on groups. Both
// commands work on the session's task manager and job groups, in process and through
// the engine's ExecuteCommand alike.

// logPage is how much of a task's log one /background read (or /agent read) shows.
const logPage = 64 << 10

var backgroundSubcommands = []string{"list", "read", "cancel", "close", "groups", "group", "wait"}

var agentSubcommands = []string{"list", "run", "parallel", "wait", "read", "open", "send", "stop", "cancel", "close"}

// backgroundSafety: listing, reading and waiting read; cancel, close and making a group
// change the session's background work.
func backgroundSafety(args string) commands.Safety {
	sub, rest := splitWord(args)
	switch sub {
	case "", "list", "read", "groups", "wait":
		return commands.SafetyReadOnly
	case "group":
		if w, _ := splitWord(rest); w != "create" {
			return commands.SafetyReadOnly
		}
	}
	return commands.SafetyBackgroundAgent
}

// agentSafety: listing, reading and waiting read; the rest starts or stops agents.
func agentSafety(args string) commands.Safety {
	switch sub, _ := splitWord(args); sub {
	case "", "list", "read", "open", "wait":
		return commands.SafetyReadOnly
	}
	return commands.SafetyBackgroundAgent
}

// tokenize splits command arguments at blanks outside quotes; quotes group words and
// are removed, a backslash inside quotes escapes the next character (label:"two words"
// is one token, label:two words).
func tokenize(s string) []string {
	var out []string
	var cur strings.Builder
	var quote rune
	inToken, escaped := false, false
	for _, r := range s {
		switch {
		case escaped:
			cur.WriteRune(r)
			escaped = false
		case quote != 0 && r == '\\':
			escaped = true
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '"' || r == '\'':
			quote, inToken = r, true
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			if inToken {
				out = append(out, cur.String())
				cur.Reset()
				inToken = false
			}
		default:
			cur.WriteRune(r)
			inToken = true
		}
	}
	if inToken {
		out = append(out, cur.String())
	}
	return out
}

func (s *InteractiveSession) cmdBackground(ctx context.Context, args string) commands.Result {
	tokens := tokenize(args)
	sub := "list"
	if len(tokens) > 0 {
		sub, tokens = tokens[0], tokens[1:]
	}
	switch sub {
	case "list":
		return s.listTasks("")
	case "read":
		return s.readTask(ctx, "background", tokens)
	case "cancel", "stop":
		return s.cancelTask(ctx, "background", tokens)
	case "close":
		return s.closeTask("background", tokens)
	case "groups":
		return s.listGroups()
	case "group":
		if len(tokens) > 0 && tokens[0] == "create" {
			return s.createGroup(tokens[1:])
		}
		if len(tokens) > 0 && tokens[0] == "show" {
			tokens = tokens[1:]
		}
		return s.showGroup(tokens)
	case "wait":
		return s.waitGroup(ctx, "background", tokens)
	}
	return fail(fmt.Sprintf("Unknown /background subcommand %q. Usage: /background [list] | read TASK_ID [OFFSET] | cancel TASK_ID [REASON] | "+
		"close TASK_ID | groups | group GROUP_ID | group create POLICY TASK_ID... | wait GROUP_ID", sub), nil)
}

// listTasks lists the session's tasks of kind ("" for all) and its groups.
func (s *InteractiveSession) listTasks(kind tasks.Kind) commands.Result {
	list := s.taskList(kind)
	groups := s.ListBackgroundJobGroups()
	var b strings.Builder
	fmt.Fprintf(&b, "%d background task(s).", len(list))
	for _, t := range list {
		fmt.Fprintf(&b, "\n%s  %s  %s  %s", t.ID, t.Kind, t.State, taskLabel(t))
	}
	if len(groups) > 0 {
		fmt.Fprintf(&b, "\n%d job group(s).", len(groups))
		for _, g := range groups {
			fmt.Fprintf(&b, "\n%s", groupLine(g))
		}
	}
	return ok(b.String(), map[string]any{"tasks": nonNilTasks(list), "groups": groups})
}

func taskLabel(t tasks.Task) string {
	if t.Command != "" {
		return t.Command
	}
	if t.Description != "" && t.Description != t.AgentType {
		return t.AgentType + ": " + t.Description
	}
	return t.AgentType
}

func groupLine(g JobGroup) string {
	s := jobgroups.Summarize(g)
	line := fmt.Sprintf("%s  %s  %s  %d/%d ended", g.ID, g.WaitPolicy, g.Status, s.Total-s.Pending, s.Total)
	if g.Label != "" {
		line += "  " + g.Label
	}
	return line
}

// taskArg is a command's first token, the task id; usage when it is missing.
func taskArg(cmd, usage string, tokens []string) (string, *commands.Result) {
	if len(tokens) == 0 || tokens[0] == "" {
		r := fail(fmt.Sprintf("Usage: /%s %s", cmd, usage), nil)
		return "", &r
	}
	return tokens[0], nil
}

// taskFailure words an error of the task manager for a command's message.
func taskFailure(op, id string, err error) commands.Result {
	msg := fmt.Sprintf("%s %s: %v", op, id, err)
	switch {
	case errors.Is(err, ErrNoBackgroundTasks):
		msg = err.Error()
	case errors.Is(err, tasks.ErrUnknownTask):
		msg = fmt.Sprintf("No background task %s (list them with /background).", id)
	}
	return fail(msg, map[string]any{"taskId": id})
}

func (s *InteractiveSession) readTask(ctx context.Context, cmd string, tokens []string) commands.Result {
	id, usage := taskArg(cmd+" read", "TASK_ID [OFFSET]", tokens)
	if usage != nil {
		return *usage
	}
	var offset int64
	if len(tokens) > 1 {
		n, err := strconv.ParseInt(tokens[1], 10, 64)
		if err != nil || n < 0 {
			return fail(fmt.Sprintf("/%s read: offset %q is not a byte offset", cmd, tokens[1]), nil)
		}
		offset = n
	}
	m, err := s.backgroundTasks()
	if err != nil {
		return taskFailure("read", id, err)
	}
	t, err := m.Get(id)
	if err != nil {
		return taskFailure("read", id, err)
	}
	page, err := m.ReadLog(ctx, id, offset, logPage)
	if err != nil {
		return taskFailure("read the log of", id, err)
	}
	text := string(page.Data)
	if text == "" && t.State.Terminal() && offset == 0 {
		text = t.Result // a task whose runner keeps no log: its result
	}
	var b strings.Builder
	if text == "" {
		fmt.Fprintf(&b, "No log output from %s (%s).", id, t.State)
	} else {
		b.WriteString(strings.TrimRight(text, "\n"))
	}
	if !page.EOF {
		fmt.Fprintf(&b, "\nNext offset: %d", page.NextOffset)
	}
	return ok(b.String(), map[string]any{"taskId": id, "status": string(t.State), "text": text, "offset": offset,
		"nextOffset": page.NextOffset, "eof": page.EOF})
}

func (s *InteractiveSession) cancelTask(ctx context.Context, cmd string, tokens []string) commands.Result {
	id, usage := taskArg(cmd+" cancel", "TASK_ID [REASON]", tokens)
	if usage != nil {
		return *usage
	}
	reason := strings.Join(tokens[1:], " ")
	if reason == "" {
		reason = "cancelled by the user (/" + cmd + ")"
	}
	m, err := s.backgroundTasks()
	if err != nil {
		return taskFailure("cancel", id, err)
	}
	t, err := m.Cancel(ctx, id, reason)
	if errors.Is(err, tasks.ErrTaskEnded) {
		cur, _ := m.Get(id)
		return fail(fmt.Sprintf("Task %s has already ended (%s); close it with /%s close %s.", id, cur.State, cmd, id),
			map[string]any{"taskId": id, "status": string(cur.State)})
	}
	if err != nil {
		return taskFailure("cancel", id, err)
	}
	return ok(fmt.Sprintf("Cancelled task %s.", id), map[string]any{"taskId": id, "status": string(t.State), "task": t})
}

func (s *InteractiveSession) closeTask(cmd string, tokens []string) commands.Result {
	id, usage := taskArg(cmd+" close", "TASK_ID", tokens)
	if usage != nil {
		return *usage
	}
	m, err := s.backgroundTasks()
	if err != nil {
		return taskFailure("close", id, err)
	}
	t, err := m.Close(id)
	if errors.Is(err, tasks.ErrTaskActive) {
		cur, _ := m.Get(id)
		return fail(fmt.Sprintf("Task %s is still %s; cancel it first (/%s cancel %s).", id, cur.State, cmd, id),
			map[string]any{"taskId": id, "status": string(cur.State)})
	}
	if err != nil {
		return taskFailure("close", id, err)
	}
	return ok(fmt.Sprintf("Closed task %s (%s).", id, t.State), map[string]any{"taskId": id, "status": string(t.State)})
}

func (s *InteractiveSession) listGroups() commands.Result {
	groups := s.ListBackgroundJobGroups()
	var b strings.Builder
	fmt.Fprintf(&b, "%d job group(s).", len(groups))
	for _, g := range groups {
		fmt.Fprintf(&b, "\n%s", groupLine(g))
	}
	return ok(b.String(), map[string]any{"groups": groups})
}

func (s *InteractiveSession) showGroup(tokens []string) commands.Result {
	if len(tokens) == 0 {
		return s.listGroups()
	}
	g, err := s.GetBackgroundJobGroup(tokens[0])
	if err != nil {
		return fail(groupError(err), map[string]any{"groupId": tokens[0]})
	}
	sum := jobgroups.Summarize(g)
	return ok(sum.String(), map[string]any{"groupId": g.ID, "group": g, "summary": sum})
}

// createGroup: /background group create POLICY TASK_ID... groups tasks already running
// (or ended) under a wait policy.
func (s *InteractiveSession) createGroup(tokens []string) commands.Result {
	if len(tokens) < 2 {
		return fail("Usage: /background group create detached|wait_all|wait_any|manual TASK_ID [TASK_ID...] [--label LABEL]", nil)
	}
	policy, err := jobgroups.ParsePolicy(tokens[0])
	if err != nil {
		return fail(err.Error(), nil)
	}
	var ids []string
	label := ""
	for i := 1; i < len(tokens); i++ {
		if tokens[i] == "--label" && i+1 < len(tokens) {
			label = tokens[i+1]
			i++
			continue
		}
		ids = append(ids, tokens[i])
	}
	g, err := s.CreateBackgroundJobGroup(JobGroupRequest{WaitPolicy: policy, TaskIDs: ids, Label: label})
	if err != nil {
		return fail(err.Error(), nil)
	}
	return ok(fmt.Sprintf("Created job group %s (%s) over %s.", g.ID, g.WaitPolicy, strings.Join(g.TaskIDs, ", ")),
		map[string]any{"groupId": g.ID, "group": g})
}

func (s *InteractiveSession) waitGroup(ctx context.Context, cmd string, tokens []string) commands.Result {
	if len(tokens) == 0 {
		return fail(fmt.Sprintf("Usage: /%s wait GROUP_ID", cmd), nil)
	}
	g, err := s.WaitBackgroundJobGroup(ctx, tokens[0])
	if err != nil {
		return fail(groupError(err), map[string]any{"groupId": tokens[0]})
	}
	sum := jobgroups.Summarize(g)
	return ok(sum.String(), map[string]any{"groupId": g.ID, "group": g, "summary": sum})
}

// agentJob is one agent the user asked for.
type agentJob struct {
	label, agentType, prompt, model, isolation string
}

// agentOptions are /agent's flags; positional are the other tokens.
type agentOptions struct {
	agentType, model, isolation string
	positional                  []string
}

func parseAgentOptions(tokens []string) (agentOptions, error) {
	var o agentOptions
	for i := 0; i < len(tokens); i++ {
		tok := tokens[i]
		value := func() (string, error) {
			if i+1 >= len(tokens) {
				return "", fmt.Errorf("%s needs a value", tok)
			}
			i++
			return tokens[i], nil
		}
		var err error
		switch tok {
		case "--background": // agents started by /agent always run in the background
		case "--agent", "--type", "-a":
			o.agentType, err = value()
		case "--model":
			o.model, err = value()
		case "--isolation":
			if o.isolation, err = value(); err == nil && o.isolation != tasks.IsolationNone && o.isolation != tasks.IsolationWorktree {
				err = fmt.Errorf("--isolation %q: want none or worktree", o.isolation)
			}
		default:
			o.positional = append(o.positional, tok)
		}
		if err != nil {
			return o, err
		}
	}
	return o, nil
}

// agentNames are the session's agent definitions' names (exact, as a prompt's first word
// must be to be read as one).
func (s *InteractiveSession) agentNames() []string {
	if s.host == nil || s.host.Agents == nil {
		return nil
	}
	return s.host.Agents.Names()
}

func (s *InteractiveSession) cmdAgent(ctx context.Context, args string) commands.Result {
	tokens := tokenize(args)
	if len(tokens) == 0 || (tokens[0] == "list" && len(tokens) == 1) {
		return s.listAgents()
	}
	sub, rest := tokens[0], tokens[1:]
	switch sub {
	case "run":
		return s.runAgent(rest)
	case "parallel":
		return s.runParallel(ctx, rest)
	case "wait":
		return s.waitGroup(ctx, "agent", rest)
	case "read", "open":
		return s.readTask(ctx, "agent", rest)
	case "send":
		return s.sendAgent(ctx, rest)
	case "stop", "cancel":
		return s.cancelTask(ctx, "agent", rest)
	case "close":
		return s.closeTask("agent", rest)
	}
	return s.runAgent(tokens)
}

func (s *InteractiveSession) listAgents() commands.Result {
	var defs []map[string]any
	if s.host != nil && s.host.Agents != nil {
		for _, d := range s.host.Agents.List() {
			defs = append(defs, map[string]any{"name": d.Name, "description": d.Description})
		}
	}
	jobs := s.taskList(tasks.KindAgent)
	running := 0
	for _, t := range jobs {
		if !t.State.Terminal() {
			running++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d agent definition(s), %d running subagent(s).", len(defs), running)
	for _, d := range defs {
		fmt.Fprintf(&b, "\n%s - %s", d["name"], d["description"])
	}
	if len(jobs) > 0 {
		b.WriteString("\nAgent jobs:")
		for _, t := range jobs {
			line := fmt.Sprintf("\n%s [%s] %s", t.ID, t.State, taskLabel(t))
			if t.WorktreePath != "" {
				line += fmt.Sprintf(" worktree=%s branch=%s", t.WorktreePath, t.WorktreeBranch)
			}
			b.WriteString(line)
		}
	}
	if defs == nil {
		defs = []map[string]any{}
	}
	var active []tasks.Task
	for _, t := range jobs {
		if !t.State.Terminal() {
			active = append(active, t)
		}
	}
	return ok(b.String(), map[string]any{"definitions": defs, "running": nonNilTasks(active), "jobs": nonNilTasks(jobs)})
}

const agentRunUsage = "Usage: /agent [run] [AGENT_NAME] [--agent NAME] [--model MODEL] [--isolation none|worktree] PROMPT"

// runAgent: /agent [run] [NAME] PROMPT starts one agent in the background and answers
// with its id at once. The first word is the agent's type only when it names one;
// otherwise the whole text is the prompt of a general-purpose agent.
func (s *InteractiveSession) runAgent(tokens []string) commands.Result {
	o, err := parseAgentOptions(tokens)
	if err != nil {
		return fail(err.Error()+"\n"+agentRunUsage, nil)
	}
	agentType, words := o.agentType, o.positional
	if agentType == "" {
		agentType = agentdefGeneral
		if len(words) > 1 && slices.Contains(s.agentNames(), words[0]) {
			agentType, words = words[0], words[1:]
		}
	}
	prompt := strings.TrimSpace(strings.Join(words, " "))
	if prompt == "" {
		return fail(agentRunUsage, nil)
	}
	id, res := s.spawnAgents([]agentJob{{label: agentType, agentType: agentType, prompt: prompt, model: o.model, isolation: o.isolation}})
	if res != nil {
		return *res
	}
	t, _ := s.Tasks().Get(id[0])
	return ok(fmt.Sprintf("Started agent job %s (%s). Read it with /agent read %s; stop it with /agent stop %s.", id[0], agentType, id[0], id[0]),
		map[string]any{"agentId": id[0], "status": string(t.State), "agentType": agentType})
}

// agentdefGeneral is the agent type a prompt without one gets.
const agentdefGeneral = "general-purpose"

// spawnAgents validates every job's type, then starts them all; when one cannot start,
// the ones started are cancelled and the command fails.
func (s *InteractiveSession) spawnAgents(jobs []agentJob) ([]string, *commands.Result) {
	var sp Subagents
	if s.host != nil {
		sp = s.host.Subagents
	}
	if sp == nil {
		r := fail(ErrNoBackgroundTasks.Error(), nil)
		return nil, &r
	}
	names := s.agentNames()
	for _, j := range jobs {
		if !slices.Contains(names, j.agentType) {
			r := fail(fmt.Sprintf("Unknown agent type: %s\nAvailable agents: %s", j.agentType, strings.Join(names, ", ")), nil)
			return nil, &r
		}
	}
	ids := make([]string, 0, len(jobs))
	for _, j := range jobs {
		id, err := sp.StartAgent(context.Background(), AgentRequest{Description: j.label, Prompt: j.prompt, AgentType: j.agentType,
			Model: j.model, Isolation: j.isolation})
		if err != nil {
			for _, started := range ids {
				_ = sp.Cancel(started, "another job of the command could not start")
			}
			r := fail(fmt.Sprintf("could not start the %s agent: %v", j.agentType, err), map[string]any{"agentIds": ids})
			return nil, &r
		}
		ids = append(ids, id)
	}
	return ids, nil
}

const parallelUsage = `Usage: /agent parallel [--wait|--detach|--any|--manual|--policy POLICY] LABEL:"PROMPT" [LABEL=AGENT_NAME:"PROMPT" ...]`

// parseParallel reads the jobs of /agent parallel: label:prompt (the label's agent
// type when it names one, else general-purpose) or label=agent:prompt.
func (s *InteractiveSession) parseParallel(o agentOptions) ([]agentJob, error) {
	names := s.agentNames()
	var jobs []agentJob
	for _, tok := range o.positional {
		j := agentJob{model: o.model, isolation: o.isolation}
		head, spec, hasEq := strings.Cut(tok, "=")
		if hasEq && head != "" && !strings.Contains(head, ":") {
			j.label = head
			if agentType, prompt, ok := strings.Cut(spec, ":"); ok && agentType != "" {
				j.agentType, j.prompt = agentType, prompt
			} else {
				j.prompt = spec
			}
		} else {
			label, prompt, ok := strings.Cut(tok, ":")
			if !ok || label == "" {
				return nil, fmt.Errorf("job %q: want LABEL:\"PROMPT\" or LABEL=AGENT_NAME:\"PROMPT\"", tok)
			}
			j.label, j.prompt = label, prompt
		}
		if j.agentType == "" {
			j.agentType = o.agentType
		}
		if j.agentType == "" {
			j.agentType = agentdefGeneral
			if slices.Contains(names, j.label) {
				j.agentType = j.label
			}
		}
		if strings.TrimSpace(j.prompt) == "" {
			return nil, fmt.Errorf("job %q has no prompt", j.label)
		}
		jobs = append(jobs, j)
	}
	return jobs, nil
}

// runParallel starts every job, groups them, and waits as the policy says: wait_all
// (the default, --wait) and wait_any (--any) wait for the group and answer its summary;
// detached (--detach) and manual (--manual) answer the ids at once, for a later
// /agent wait GROUP_ID. A wait that is interrupted cancels the jobs still running, as an
// interrupted Agent call does.
func (s *InteractiveSession) runParallel(ctx context.Context, tokens []string) commands.Result {
	policy := jobgroups.WaitAll
	var rest []string
	for i := 0; i < len(tokens); i++ {
		switch tokens[i] {
		case "--wait":
			policy = jobgroups.WaitAll
		case "--detach":
			policy = jobgroups.Detached
		case "--any":
			policy = jobgroups.WaitAny
		case "--manual":
			policy = jobgroups.Manual
		case "--policy":
			if i+1 >= len(tokens) {
				return fail("--policy needs a value\n"+parallelUsage, nil)
			}
			p, err := jobgroups.ParsePolicy(tokens[i+1])
			if err != nil {
				return fail(err.Error(), nil)
			}
			policy = p
			i++
		default:
			rest = append(rest, tokens[i])
		}
	}
	o, err := parseAgentOptions(rest)
	if err != nil {
		return fail(err.Error()+"\n"+parallelUsage, nil)
	}
	jobs, err := s.parseParallel(o)
	if err != nil {
		return fail(err.Error()+"\n"+parallelUsage, nil)
	}
	if len(jobs) == 0 {
		return fail(parallelUsage, nil)
	}
	ids, res := s.spawnAgents(jobs)
	if res != nil {
		return *res
	}
	g, err := s.CreateBackgroundJobGroup(JobGroupRequest{WaitPolicy: policy, TaskIDs: ids, Label: "agent parallel"})
	if err != nil {
		return fail(err.Error(), map[string]any{"agentIds": ids})
	}
	data := map[string]any{"agentIds": ids, "groupId": g.ID, "waitPolicy": string(policy)}
	if policy == jobgroups.Detached || policy == jobgroups.Manual {
		var b strings.Builder
		fmt.Fprintf(&b, "Started agent jobs (group %s, %s):", g.ID, policy)
		for i, id := range ids {
			fmt.Fprintf(&b, "\n%s: %s", jobs[i].label, id)
		}
		fmt.Fprintf(&b, "\nWait for them with /agent wait %s.", g.ID)
		return ok(b.String(), data)
	}
	done, err := s.WaitBackgroundJobGroup(ctx, g.ID)
	if err != nil {
		if m, merr := s.backgroundTasks(); merr == nil {
			for _, id := range ids {
				_, _ = m.Cancel(context.WithoutCancel(ctx), id, "the command waiting for it was interrupted")
			}
		}
		return fail(fmt.Sprintf("waiting for group %s: %v (its jobs were cancelled)", g.ID, err), data)
	}
	sum := jobgroups.Summarize(done)
	data["summary"], data["group"] = sum, done
	return ok(sum.String(), data)
}

// sendAgent: /agent send ID PROMPT forwards input to a running agent whose runner takes
// it.
func (s *InteractiveSession) sendAgent(ctx context.Context, tokens []string) commands.Result {
	if len(tokens) < 2 {
		return fail("Usage: /agent send AGENT_ID PROMPT", nil)
	}
	id, prompt := tokens[0], strings.Join(tokens[1:], " ")
	m, err := s.backgroundTasks()
	if err != nil {
		return taskFailure("send to", id, err)
	}
	if err := m.Send(ctx, id, prompt); err != nil {
		return taskFailure("send to", id, err)
	}
	return ok("Sent input to agent job "+id+".", map[string]any{"agentId": id})
}

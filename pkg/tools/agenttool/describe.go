package agenttool

import (
	"fmt"
	"strings"
)

// toolsSummary says which tools an agent type has, as Claude Code's agent list does.
func toolsSummary(t AgentType) string {
	switch {
	case t.Tools != nil && len(t.DisallowedTools) > 0:
		deny := map[string]bool{}
		for _, d := range t.DisallowedTools {
			deny[d] = true
		}
		var keep []string
		for _, n := range t.Tools {
			if !deny[n] {
				keep = append(keep, n)
			}
		}
		if len(keep) == 0 {
			return "None"
		}
		return strings.Join(keep, ", ")
	case t.Tools != nil:
		if len(t.Tools) == 0 {
			return "None"
		}
		return strings.Join(t.Tools, ", ")
	case len(t.DisallowedTools) > 0:
		return "All tools except " + strings.Join(t.DisallowedTools, ", ")
	}
	return "All tools"
}

// agentDescription is the Agent tool's description: what it does, the agent types on
// offer (one line each: name, when to use it, its tools), and how to call it.
func agentDescription(types []AgentType, defaultType string) string {
	var b strings.Builder
	b.WriteString("Launch a new agent to handle a complex, multi-step task on its own. Each agent type has its own capabilities and tools.\n\n")
	b.WriteString("Available agent types and the tools they have access to:\n")
	for _, t := range types {
		desc := strings.Join(strings.Fields(t.Description), " ")
		fmt.Fprintf(&b, "- %s: %s (Tools: %s)\n", t.Name, desc, toolsSummary(t))
	}
	fmt.Fprintf(&b, "\nSet subagent_type to choose the agent type; without it the %s agent is used.\n", defaultType)
	b.WriteString(`
## When not to use

If the target is already known, use the direct tool: Read for a known path, Grep for a specific symbol or string. Keep this tool for open-ended questions that span the codebase, independent work that can run in parallel, and tasks that match an available agent type.

## Usage notes

- Always include a short (3-5 word) description of what the agent will do.
- The agent starts fresh: it has not seen this conversation. Write a self-contained prompt: what to achieve and why, what you already know or ruled out, and whether it should write code or only research. Ask for a short answer when that is all you need.
- The agent's final message comes back to you as the tool result; the user does not see it, so tell the user what matters.
- To run several agents at once, give them as jobs in one Agent call (each job: prompt, and optionally description, subagent_type, model, isolation). Every valid job starts before any is waited for, and you get one result per job, with the group id and the agent ids. An invalid job is reported on its own and does not stop the others. Several Agent calls in one message also run at the same time.
- run_in_background: true returns at once with the agent id; read the result later with TaskOutput (task_id) and stop the agent with TaskStop. Use it only for work that is truly independent of your next steps.
- isolation: "worktree" runs the agent in its own git worktree: it is removed when the agent changed nothing, otherwise its path and branch are in the result. Use it when parallel agents edit files.
- model overrides the agent's model (sonnet, opus, haiku or a model id); without it the agent type's model, else yours, is used.
- Trust but verify: an agent's summary says what it meant to do, not necessarily what it did; check its changes before reporting them as done.
- Agents cannot start agents of their own.`)
	return b.String()
}

const taskOutputDescription = `Reads the output of a background task: a Bash command started with run_in_background, or an agent started with run_in_background.
- Takes the task_id the tool that started the task returned
- Returns the task's output with its status (and exit code for commands)
- block=true (default) waits until the task finishes, at most timeout milliseconds (default 30000, at most 600000)
- block=false returns the current state at once
- retrieval_status is success (the task finished), timeout (still running after the wait) or not_ready (still running, block=false)`

const taskStopDescription = `Stops a running background task by its ID.
- Takes the task_id of the task to stop (a background Bash command or a background agent)
- Returns a success or failure status
- Use it to end a long-running task you no longer need`

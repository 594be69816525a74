package agenttool

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// JobResult is the structured outcome of one job of a batch, in
// Metadata["jobs"] and rendered in the text.
type JobResult struct {
	Index        int    `json:"index"`
	AgentID      string `json:"agentId,omitempty"`
	SubagentType string `json:"subagentType,omitempty"`
	Description  string `json:"description,omitempty"`
	// Status: completed, failed, cancelled, started (background), invalid (never started)
	// or spawn_failed.
	Status       string `json:"status"`
	Output       string `json:"output,omitempty"`
	Error        string `json:"error,omitempty"`
	ErrorCode    string `json:"errorCode,omitempty"`
	WorktreePath string `json:"worktreePath,omitempty"`
	BranchName   string `json:"branchName,omitempty"`
	TotalTokens  int    `json:"totalTokens,omitempty"`
	ToolUses     int    `json:"toolUses,omitempty"`
	DurationMs   int64  `json:"durationMs,omitempty"`
}

// Batch job statuses besides the terminal ones.
const (
	StatusStarted     = "started"
	StatusInvalid     = "invalid"
	StatusSpawnFailed = "spawn_failed"
)

// runBatch validates every job, starts all valid ones, then (unless in the background)
// waits for every started one, and returns one result per job in request order under a
// shared groupId/agentIds envelope.
func (a *Agent) runBatch(ctx context.Context, toolCallID string, p agentParams) llm.ToolResult {
	groupID := a.cfg.NewGroupID()
	results := make([]JobResult, len(p.Jobs))
	var started []int // indexes of started jobs, in order
	for i, j := range p.Jobs {
		results[i].Index = i
		req, jerr := a.validate(j)
		if jerr != nil {
			results[i].Status, results[i].Error, results[i].ErrorCode = StatusInvalid, jerr.msg, jerr.code
			continue
		}
		results[i].SubagentType, results[i].Description = req.AgentType, req.Description
		req.Background = p.RunInBackground
		req.ToolCallID, req.GroupID, req.Index = toolCallID, groupID, i
		id, err := a.cfg.Spawner.Spawn(ctx, req)
		if err != nil {
			results[i].Status, results[i].ErrorCode = StatusSpawnFailed, CodeSpawnFailed
			results[i].Error = fmt.Sprintf("could not start the %s agent: %v", req.AgentType, err)
			continue
		}
		results[i].AgentID, results[i].Status = id, StatusStarted
		started = append(started, i)
	}
	agentIDs := make([]string, 0, len(started))
	for _, i := range started {
		agentIDs = append(agentIDs, results[i].AgentID)
	}
	if g, ok := a.cfg.Spawner.(Grouper); ok && len(agentIDs) > 0 {
		// Listed before anything is waited for, so /background groups shows it running.
		_ = g.GroupBatch(groupID, agentIDs)
	}
	if !p.RunInBackground {
		a.waitAll(ctx, results, started)
	}
	meta := map[string]any{"groupId": groupID, "agentIds": agentIDs, "jobs": results, "background": p.RunInBackground}
	text := batchText(groupID, agentIDs, results, p.RunInBackground)
	if len(started) == 0 {
		meta["errorCode"] = CodeInvalidArgument
		return llm.ToolResult{Success: false, Error: text, Metadata: meta}
	}
	return llm.ToolResult{Success: true, Output: text, Metadata: meta}
}

// waitAll waits for the started jobs at the same time. When ctx ends first, the jobs not
// yet finished are cancelled and reported as such.
func (a *Agent) waitAll(ctx context.Context, results []JobResult, started []int) {
	var wg sync.WaitGroup
	for _, i := range started {
		wg.Add(1)
		go func(r *JobResult) {
			defer wg.Done()
			res, err := a.cfg.Spawner.Wait(ctx, r.AgentID)
			switch {
			case err != nil && ctx.Err() != nil:
				_ = a.cfg.Spawner.Cancel(r.AgentID, "the parent was interrupted")
				r.Status, r.ErrorCode, r.Error = StatusCancelled, CodeInterrupted, "interrupted: the agent was stopped"
			case err != nil:
				r.Status, r.ErrorCode, r.Error = StatusFailed, CodeAgentFailed, fmt.Sprintf("could not wait for the agent: %v", err)
			default:
				r.Status, r.Output, r.Error = res.Status, res.Output, res.Error
				if !res.Succeeded() {
					r.ErrorCode = CodeAgentFailed
				}
				r.WorktreePath, r.BranchName = res.WorktreePath, res.BranchName
				r.TotalTokens, r.ToolUses, r.DurationMs = res.TotalTokens, res.ToolUses, res.DurationMs
			}
		}(&results[i])
	}
	wg.Wait()
}

// batchText renders the envelope and one <job> block per job, in request order.
func batchText(groupID string, agentIDs []string, results []JobResult, background bool) string {
	counts := map[string]int{}
	for _, r := range results {
		counts[r.Status]++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Agent group %s: %d of %d jobs started", groupID, len(agentIDs), len(results))
	if len(agentIDs) > 0 {
		fmt.Fprintf(&b, " (agentIds: %s)", strings.Join(agentIDs, ", "))
	}
	var parts []string
	for _, s := range []string{StatusCompleted, StatusFailed, StatusCancelled, StatusInvalid, StatusSpawnFailed} {
		if counts[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
		}
	}
	if len(parts) > 0 {
		b.WriteString("; " + strings.Join(parts, ", "))
	}
	b.WriteString(".")
	if background && len(agentIDs) > 0 {
		b.WriteString(" They run in the background: read each result with TaskOutput (task_id = agentId), stop one with TaskStop.")
	}
	for _, r := range results {
		fmt.Fprintf(&b, "\n\n<job index=\"%d\"", r.Index)
		if r.AgentID != "" {
			fmt.Fprintf(&b, " agentId=%q", r.AgentID)
		}
		if r.SubagentType != "" {
			fmt.Fprintf(&b, " subagent_type=%q", r.SubagentType)
		}
		fmt.Fprintf(&b, " status=%q>", r.Status)
		if r.Error != "" {
			fmt.Fprintf(&b, "\nError: %s", r.Error)
		}
		if out := strings.TrimSpace(r.Output); out != "" {
			b.WriteString("\n" + out)
		} else if r.Status == StatusCompleted {
			b.WriteString("\n(Subagent completed but returned no output.)")
		}
		if r.WorktreePath != "" {
			fmt.Fprintf(&b, "\nworktreePath: %s\nworktreeBranch: %s", r.WorktreePath, r.BranchName)
		}
		b.WriteString("\n</job>")
	}
	return b.String()
}

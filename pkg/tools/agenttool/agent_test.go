package agenttool

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestAgentSingle(t *testing.T) {
	tests := []struct {
		name      string
		args      map[string]any
		wantOK    bool
		wantText  []string
		wantCode  string
		checkReq  func(t *testing.T, r SpawnRequest)
		wantSpawn bool
	}{
		{
			name:   "foreground completes",
			args:   map[string]any{"description": "Find  the parser", "prompt": "find it", "subagent_type": "Explore", "model": "haiku"},
			wantOK: true, wantSpawn: true,
			wantText: []string{"done: find it\n\nagentId: agent-1\n<usage>subagent_tokens: 120\ntool_uses: 3\nduration_ms: 45</usage>"},
			checkReq: func(t *testing.T, r SpawnRequest) {
				if r.AgentType != "Explore" || r.Model != "haiku" || r.Description != "Find the parser" || r.ToolCallID != "toolu_1" || r.Background || r.Isolation != "" {
					t.Errorf("request %+v", r)
				}
			},
		},
		{
			name:   "default type and label",
			args:   map[string]any{"prompt": "look at every file in the repository please"},
			wantOK: true, wantSpawn: true,
			checkReq: func(t *testing.T, r SpawnRequest) {
				if r.AgentType != "general-purpose" || r.Description != "look at every file in" {
					t.Errorf("request %+v", r)
				}
			},
		},
		{
			name:   "case-folded type",
			args:   map[string]any{"prompt": "x", "subagent_type": "explore"},
			wantOK: true, wantSpawn: true,
			checkReq: func(t *testing.T, r SpawnRequest) {
				if r.AgentType != "Explore" {
					t.Errorf("type %q", r.AgentType)
				}
			},
		},
		{
			name:     "unknown type lists the available ones",
			args:     map[string]any{"prompt": "x", "subagent_type": "Destroyer"},
			wantCode: CodeUnknownAgent,
			wantText: []string{"Agent type 'Destroyer' not found. Available agents: Explore, general-purpose, reviewer, watcher"},
		},
		{
			name:     "missing prompt",
			args:     map[string]any{"description": "nothing"},
			wantCode: CodeInvalidArgument, wantText: []string{"prompt is required"},
		},
		{
			name:     "remote isolation is refused by the schema",
			args:     map[string]any{"prompt": "x", "isolation": "remote"},
			wantCode: "invalid_arguments", wantText: []string{"isolation"},
		},
		{
			name:   "worktree isolation",
			args:   map[string]any{"prompt": "x", "isolation": "worktree"},
			wantOK: true, wantSpawn: true,
			checkReq: func(t *testing.T, r SpawnRequest) {
				if r.Isolation != "worktree" {
					t.Errorf("isolation %q", r.Isolation)
				}
			},
		},
		{
			name:   "definition isolation applies, none overrides it",
			args:   map[string]any{"prompt": "x", "subagent_type": "reviewer", "isolation": "none"},
			wantOK: true, wantSpawn: true,
			checkReq: func(t *testing.T, r SpawnRequest) {
				if r.Isolation != "" {
					t.Errorf("isolation %q", r.Isolation)
				}
			},
		},
		{
			name:   "definition isolation default",
			args:   map[string]any{"prompt": "x", "subagent_type": "reviewer"},
			wantOK: true, wantSpawn: true,
			checkReq: func(t *testing.T, r SpawnRequest) {
				if r.Isolation != "worktree" {
					t.Errorf("isolation %q", r.Isolation)
				}
			},
		},
		{
			name:   "background returns the id at once",
			args:   map[string]any{"prompt": "hang forever", "run_in_background": true},
			wantOK: true, wantSpawn: true,
			wantText: []string{"Async agent launched successfully.\nagentId: agent-1", `task_id "agent-1"`},
			checkReq: func(t *testing.T, r SpawnRequest) {
				if !r.Background {
					t.Error("not background")
				}
			},
		},
		{
			name:   "background definition",
			args:   map[string]any{"prompt": "hang", "subagent_type": "watcher"},
			wantOK: true, wantSpawn: true, wantText: []string{"Async agent launched"},
		},
		{
			name:     "failed agent",
			args:     map[string]any{"prompt": "fail please"},
			wantCode: CodeAgentFailed, wantSpawn: true,
			wantText: []string{"Agent agent-1 (general-purpose) failed: provider error\npartial"},
		},
		{
			name:     "spawn error",
			args:     map[string]any{"prompt": "spawn-error"},
			wantCode: CodeSpawnFailed, wantText: []string{"Could not start the general-purpose agent: no worker available"},
		},
		{
			name:   "unknown arguments are tolerated",
			args:   map[string]any{"prompt": "x", "name": "ship-audit", "mode": "plan", "team_name": "t"},
			wantOK: true, wantSpawn: true,
		},
		{
			name:     "prompt and jobs together",
			args:     map[string]any{"prompt": "x", "jobs": []any{map[string]any{"prompt": "y"}}},
			wantCode: CodeInvalidArgument, wantText: []string{"not both"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newFakeSpawner(0)
			res := call(t, newTestAgent(t, s), nil, tc.args)
			if res.Success != tc.wantOK {
				t.Fatalf("success %v: %s", res.Success, res.ModelContent())
			}
			if tc.wantCode != "" && res.Metadata["errorCode"] != tc.wantCode {
				t.Errorf("errorCode %v, want %s", res.Metadata["errorCode"], tc.wantCode)
			}
			for _, w := range tc.wantText {
				if !strings.Contains(res.ModelContent(), w) {
					t.Errorf("result %q lacks %q", res.ModelContent(), w)
				}
			}
			if (len(s.reqs) > 0) != tc.wantSpawn {
				t.Fatalf("spawned %v", s.reqs)
			}
			if tc.checkReq != nil {
				tc.checkReq(t, s.reqs[0])
			}
		})
	}
}

func TestAgentWorktreeResult(t *testing.T) {
	s := newFakeSpawner(0)
	s.result = func(id, prompt string) AgentResult {
		return AgentResult{AgentID: id, Status: StatusCompleted, Output: "", WorktreePath: "/wt/x", BranchName: "agent/x"}
	}
	res := call(t, newTestAgent(t, s), nil, map[string]any{"prompt": "x", "isolation": "worktree"})
	want := "(Subagent completed but returned no output.)\n\nagentId: agent-1\nworktreePath: /wt/x\nworktreeBranch: agent/x\n<usage>"
	if !res.Success || !strings.HasPrefix(res.Output, want) || res.Metadata["worktreePath"] != "/wt/x" {
		t.Fatalf("result %q %v", res.Output, res.Metadata)
	}
}

func TestAgentInterruptCancels(t *testing.T) {
	s := newFakeSpawner(0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.onHang = cancel // the parent is interrupted while the agent runs
	res := call(t, newTestAgent(t, s), ctx, map[string]any{"prompt": "hang"})
	if res.Success || res.Metadata["errorCode"] != CodeInterrupted || len(s.cancelled) != 1 || s.cancelled[0] != "agent-1" {
		t.Fatalf("result %v, cancelled %v", res, s.cancelled)
	}
}

// TestAgentBatch: every valid job starts before any wait, waits run at the same time,
// one result per job in request order, invalid jobs reported alone.
func TestAgentBatch(t *testing.T) {
	s := newFakeSpawner(2)
	res := call(t, newTestAgent(t, s), nil, map[string]any{
		"description": "two explorers",
		"jobs": []any{
			map[string]any{"prompt": "barrier one", "subagent_type": "Explore", "extra": 1},
			map[string]any{"prompt": "   "},
			map[string]any{"prompt": "barrier two", "isolation": "worktree", "description": "second"},
			map[string]any{"prompt": "x", "subagent_type": "Nope"},
			map[string]any{"prompt": "spawn-error now"},
			map[string]any{"prompt": "fail hard"},
			map[string]any{"prompt": "x", "isolation": "remote"},
		},
	})
	if !res.Success {
		t.Fatalf("batch failed: %s", res.ModelContent())
	}
	// Spawns first, then waits.
	lastSpawn, firstWait := -1, len(s.events)
	for i, e := range s.events {
		if strings.HasPrefix(e, "spawn") {
			lastSpawn = i
		} else if strings.HasPrefix(e, "wait") && i < firstWait {
			firstWait = i
		}
	}
	if lastSpawn > firstWait {
		t.Errorf("a wait began before every job was started: %v", s.events)
	}
	for _, r := range s.reqs {
		if r.GroupID != "group-1" || r.ToolCallID != "toolu_1" {
			t.Errorf("request %+v", r)
		}
	}
	if s.reqs[1].Index != 2 || s.reqs[1].Isolation != "worktree" || s.reqs[1].Description != "second" {
		t.Errorf("second request %+v", s.reqs[1])
	}
	jobs := res.Metadata["jobs"].([]JobResult)
	want := []struct{ status, id, code string }{
		{StatusCompleted, "agent-1", ""},
		{StatusInvalid, "", CodeInvalidArgument},
		{StatusCompleted, "agent-2", ""},
		{StatusInvalid, "", CodeUnknownAgent},
		{StatusSpawnFailed, "", CodeSpawnFailed},
		{StatusFailed, "agent-3", CodeAgentFailed},
		{StatusInvalid, "", CodeInvalidArgument},
	}
	if len(jobs) != len(want) {
		t.Fatalf("jobs %+v", jobs)
	}
	for i, w := range want {
		if jobs[i].Index != i || jobs[i].Status != w.status || jobs[i].AgentID != w.id || jobs[i].ErrorCode != w.code {
			t.Errorf("job %d: %+v, want %+v", i, jobs[i], w)
		}
	}
	if ids := res.Metadata["agentIds"].([]string); strings.Join(ids, ",") != "agent-1,agent-2,agent-3" || res.Metadata["groupId"] != "group-1" {
		t.Errorf("envelope %v %v", res.Metadata["groupId"], ids)
	}
	text := res.Output
	for _, w := range []string{
		"Agent group group-1: 3 of 7 jobs started (agentIds: agent-1, agent-2, agent-3); 2 completed, 1 failed, 3 invalid, 1 spawn_failed.",
		"<job index=\"0\" agentId=\"agent-1\" subagent_type=\"Explore\" status=\"completed\">\ndone: barrier one\n</job>",
		"<job index=\"1\" status=\"invalid\">\nError: prompt is required",
		"<job index=\"3\" status=\"invalid\">\nError: Agent type 'Nope' not found",
		"<job index=\"5\" agentId=\"agent-3\" subagent_type=\"general-purpose\" status=\"failed\">\nError: provider error\npartial\n</job>",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("text lacks %q:\n%s", w, text)
		}
	}
}

func TestAgentBatchAllInvalidFails(t *testing.T) {
	s := newFakeSpawner(0)
	res := call(t, newTestAgent(t, s), nil, map[string]any{"jobs": []any{map[string]any{"prompt": ""}, map[string]any{"prompt": "x", "subagent_type": "?"}}})
	if res.Success || len(s.reqs) != 0 || !strings.Contains(res.Error, "0 of 2 jobs started") {
		t.Fatalf("result %v", res)
	}
}

func TestAgentBatchBackground(t *testing.T) {
	s := newFakeSpawner(0)
	res := call(t, newTestAgent(t, s), nil, map[string]any{"run_in_background": true,
		"jobs": []any{map[string]any{"prompt": "hang a"}, map[string]any{"prompt": "hang b"}}})
	if !res.Success || len(s.reqs) != 2 || !s.reqs[0].Background || !s.reqs[1].Background {
		t.Fatalf("result %v reqs %+v", res, s.reqs)
	}
	for _, e := range s.events {
		if strings.HasPrefix(e, "wait") {
			t.Fatalf("a background batch waited: %v", s.events)
		}
	}
	if !strings.Contains(res.Output, `status="started"`) || !strings.Contains(res.Output, "TaskOutput") {
		t.Errorf("text %s", res.Output)
	}
}

func TestAgentBatchInterruptCancelsUnfinished(t *testing.T) {
	s := newFakeSpawner(0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.onHang = cancel
	res := call(t, newTestAgent(t, s), ctx, map[string]any{"jobs": []any{map[string]any{"prompt": "quick"}, map[string]any{"prompt": "hang"}}})
	jobs := res.Metadata["jobs"].([]JobResult)
	if jobs[0].Status != StatusCompleted || jobs[1].Status != StatusCancelled || len(s.cancelled) != 1 || s.cancelled[0] != "agent-2" {
		t.Fatalf("jobs %+v cancelled %v", jobs, s.cancelled)
	}
}

func TestAgentDescriptionListsTypes(t *testing.T) {
	a := newTestAgent(t, newFakeSpawner(0))
	d := a.Schema().Description
	for _, w := range []string{
		"Available agent types and the tools they have access to:\n" +
			"- Explore: Read-only search. (Tools: All tools except Edit, Write)\n" +
			"- general-purpose: Does anything. (Tools: All tools)\n" +
			"- reviewer: Reviews code. (Tools: Read, Grep)\n",
		"without it the general-purpose agent is used",
		"jobs",
	} {
		if !strings.Contains(d, w) {
			t.Errorf("description lacks %q:\n%s", w, d)
		}
	}
	var schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(a.Schema().InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"description", "prompt", "subagent_type", "model", "run_in_background", "isolation", "jobs"} {
		if _, ok := schema.Properties[p]; !ok {
			t.Errorf("schema lacks %s", p)
		}
	}
	if len(schema.Required) != 0 {
		t.Errorf("required %v: prompt and jobs are alternatives", schema.Required)
	}
}

func TestToolsSummary(t *testing.T) {
	tests := []struct {
		t    AgentType
		want string
	}{
		{AgentType{}, "All tools"},
		{AgentType{Tools: []string{}}, "None"},
		{AgentType{Tools: []string{"Read", "Edit"}, DisallowedTools: []string{"Edit"}}, "Read"},
		{AgentType{Tools: []string{"Edit"}, DisallowedTools: []string{"Edit"}}, "None"},
	}
	for _, tc := range tests {
		if got := toolsSummary(tc.t); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.t, got, tc.want)
		}
	}
}

func TestConcurrencySafety(t *testing.T) {
	a := newTestAgent(t, newFakeSpawner(0))
	o, _ := NewTaskOutput(&fakeTasks{})
	s, _ := NewTaskStop(&fakeTasks{})
	for name, cs := range map[string]interface{ ConcurrencySafe(json.RawMessage) bool }{"Agent": a, "TaskOutput": o, "TaskStop": s} {
		if !cs.ConcurrencySafe(json.RawMessage(`{}`)) {
			t.Errorf("%s is not concurrency-safe", name)
		}
	}
}

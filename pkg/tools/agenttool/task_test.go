package agenttool

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func intp(i int) *int { return &i }

func TestTaskOutput(t *testing.T) {
	running := TaskInfo{ID: "b1", Type: "local_bash", Status: "running", Command: "sleep 5", Output: "tick\n"}
	finished := TaskInfo{ID: "b1", Type: "local_bash", Status: "completed", Done: true, Command: "sleep 5", Output: "tick\ntock\n", ExitCode: intp(0)}
	failedAgent := TaskInfo{ID: "a1", Type: "local_agent", Status: "failed", Done: true, Output: "half", Error: "provider error"}
	tests := []struct {
		name       string
		tasks      map[string]TaskInfo
		finish     map[string]TaskInfo
		vanish     bool
		args       map[string]any
		ok         bool
		want       string
		retrStatus string
	}{
		{"missing id", nil, nil, false, map[string]any{"task_id": " "}, false, "Task ID is required", ""},
		{"unknown id", nil, nil, false, map[string]any{"task_id": "zz"}, false, "No task found with ID: zz", ""},
		{"non-blocking running", map[string]TaskInfo{"b1": running}, nil, false, map[string]any{"task_id": "b1", "block": false}, true,
			"<retrieval_status>not_ready</retrieval_status>\n\n<task_id>b1</task_id>\n\n<task_type>local_bash</task_type>\n\n<status>running</status>\n\n<output>\ntick\n</output>", RetrievalNotReady},
		{"non-blocking finished", map[string]TaskInfo{"b1": finished}, nil, false, map[string]any{"task_id": "b1", "block": false}, true,
			"<retrieval_status>success</retrieval_status>\n\n<task_id>b1</task_id>\n\n<task_type>local_bash</task_type>\n\n<status>completed</status>\n\n<exit_code>0</exit_code>\n\n<output>\ntick\ntock\n</output>", RetrievalSuccess},
		{"blocking until done", map[string]TaskInfo{"b1": running}, map[string]TaskInfo{"b1": finished}, false, map[string]any{"task_id": "b1"}, true,
			"<retrieval_status>success</retrieval_status>", RetrievalSuccess},
		{"blocking times out", map[string]TaskInfo{"b1": running}, nil, false, map[string]any{"task_id": "b1", "timeout": 0}, true,
			"<retrieval_status>timeout</retrieval_status>\n\n<task_id>b1</task_id>\n\n<task_type>local_bash</task_type>\n\n<status>running</status>", RetrievalTimeout},
		{"task vanishes while waited for", map[string]TaskInfo{"b1": running}, nil, true, map[string]any{"task_id": "b1"}, true,
			"<retrieval_status>timeout</retrieval_status>", RetrievalTimeout},
		{"failed agent", map[string]TaskInfo{"a1": failedAgent}, nil, false, map[string]any{"task_id": "a1"}, true,
			"<retrieval_status>success</retrieval_status>\n\n<task_id>a1</task_id>\n\n<task_type>local_agent</task_type>\n\n<status>failed</status>\n\n<output>\nhalf\n</output>\n\n<error>provider error</error>", RetrievalSuccess},
		{"timeout over the maximum", map[string]TaskInfo{"b1": running}, nil, false, map[string]any{"task_id": "b1", "timeout": 600001}, false, "timeout", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeTasks{tasks: tc.tasks, finishOnWait: tc.finish, vanish: tc.vanish}
			if f.tasks == nil {
				f.tasks = map[string]TaskInfo{}
			}
			tool, err := NewTaskOutput(f)
			if err != nil {
				t.Fatal(err)
			}
			res := call(t, tool, nil, tc.args)
			if res.Success != tc.ok || !strings.Contains(res.ModelContent(), tc.want) {
				t.Fatalf("result %v %q, want %v containing %q", res.Success, res.ModelContent(), tc.ok, tc.want)
			}
			if tc.retrStatus != "" && res.Metadata["retrievalStatus"] != tc.retrStatus {
				t.Errorf("metadata %v", res.Metadata)
			}
		})
	}
}

func TestTaskOutputKeepsTheTail(t *testing.T) {
	out := strings.Repeat("é", MaxTaskOutputChars) + "THE END"
	for _, path := range []string{"/tmp/task.log", ""} {
		f := &fakeTasks{tasks: map[string]TaskInfo{"b": {ID: "b", Type: "local_bash", Status: "completed", Done: true, Output: out, OutputPath: path}}}
		tool, err := NewTaskOutput(f)
		if err != nil {
			t.Fatal(err)
		}
		res := call(t, tool, nil, map[string]any{"task_id": "b"})
		body := res.Output[strings.Index(res.Output, "<output>\n")+len("<output>\n") : strings.LastIndex(res.Output, "\n</output>")]
		if n := len([]rune(body)); n > MaxTaskOutputChars || !strings.HasSuffix(body, "THE END") || !strings.HasPrefix(body, "[Truncated") {
			t.Errorf("path %q: %d runes, head %q", path, n, body[:40])
		}
		if path != "" && !strings.HasPrefix(body, "[Truncated. Full output: /tmp/task.log]\n\n") {
			t.Errorf("head %q", body[:50])
		}
		if res.Metadata["truncated"] != true {
			t.Errorf("metadata %v", res.Metadata)
		}
	}
}

func TestTaskOutputInterrupted(t *testing.T) {
	f := &fakeTasks{tasks: map[string]TaskInfo{"b": {ID: "b", Status: "running"}}}
	tool, _ := NewTaskOutput(f)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res := call(t, tool, ctx, map[string]any{"task_id": "b"})
	if res.Success || res.Metadata["errorCode"] != CodeInterrupted {
		t.Fatalf("result %v", res)
	}
}

func TestTaskStop(t *testing.T) {
	tasks := map[string]TaskInfo{"b1": {ID: "b1", Type: "local_bash", Command: "go test ./... > log"}, "a1": {ID: "a1", Type: "local_agent", Command: "Explore the parser"}}
	tests := []struct {
		name    string
		args    map[string]any
		stopErr error
		ok      bool
		want    string
		stopped string
	}{
		{"task_id", map[string]any{"task_id": "b1"}, nil, true,
			`{"message":"Successfully stopped task: b1 (go test ./... > log)","task_id":"b1","task_type":"local_bash","command":"go test ./... > log"}`, "b1"},
		{"older shell_id", map[string]any{"shell_id": "a1"}, nil, true,
			`{"message":"Successfully stopped task: a1 (Explore the parser)","task_id":"a1","task_type":"local_agent","command":"Explore the parser"}`, "a1"},
		{"task_id wins over shell_id", map[string]any{"task_id": "a1", "shell_id": "b1"}, nil, true, `"task_id":"a1"`, "a1"},
		{"missing", map[string]any{}, nil, false, "Missing required parameter: task_id", ""},
		{"unknown", map[string]any{"task_id": "zz"}, nil, false, "No task found with ID: zz", "zz"},
		{"not running", map[string]any{"task_id": "b1"}, fmt.Errorf("stop: %w", &NotRunningError{ID: "b1", Status: "completed"}), false,
			"Task b1 is not running (status: completed)", "b1"},
		{"other error", map[string]any{"task_id": "b1"}, errors.New("worker gone"), false, "Could not stop task b1: worker gone", "b1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeTasks{tasks: tasks, stopErr: tc.stopErr}
			tool, err := NewTaskStop(f)
			if err != nil {
				t.Fatal(err)
			}
			res := call(t, tool, nil, tc.args)
			if res.Success != tc.ok || !strings.Contains(res.ModelContent(), tc.want) {
				t.Fatalf("result %v %q, want %q", res.Success, res.ModelContent(), tc.want)
			}
			if got := strings.Join(f.stopped, ","); got != tc.stopped {
				t.Errorf("stopped %q, want %q", got, tc.stopped)
			}
		})
	}
}

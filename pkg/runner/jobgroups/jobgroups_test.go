package jobgroups

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/runner/tasks"
)

// fakeTasks is a task manager's Get over a map.
type fakeTasks struct {
	mu sync.Mutex
	m  map[string]tasks.Task
}

func newFake(ids ...string) *fakeTasks {
	f := &fakeTasks{m: map[string]tasks.Task{}}
	for _, id := range ids {
		f.m[id] = tasks.Task{ID: id, Kind: tasks.KindAgent, AgentType: "general-purpose", Description: "job " + id, State: tasks.StateRunning}
	}
	return f
}

func (f *fakeTasks) Get(id string) (tasks.Task, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, ok := f.m[id]
	if !ok {
		return tasks.Task{}, fmt.Errorf("task %s: %w", id, tasks.ErrUnknownTask)
	}
	return t, nil
}

// end makes task id terminal and returns the manager's event for it.
func (f *fakeTasks) end(id string, st tasks.State, result string) tasks.Event {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := f.m[id]
	t.State, t.Result = st, result
	if st == tasks.StateCancelled {
		t.CancelReason = "stopped"
	}
	f.m[id] = t
	typ := map[tasks.State]tasks.EventType{tasks.StateCompleted: tasks.EventCompleted, tasks.StateFailed: tasks.EventFailed,
		tasks.StateCancelled: tasks.EventCancelled}[st]
	return tasks.Event{Type: typ, TaskID: id, Task: &t}
}

type recorder struct {
	mu  sync.Mutex
	evs []Event
}

func (r *recorder) on(ev Event) {
	r.mu.Lock()
	r.evs = append(r.evs, ev)
	r.mu.Unlock()
}

// kinds renders the events as "created", "updated:1" (results), "completed:2".
func (r *recorder) kinds() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, ev := range r.evs {
		k := strings.TrimPrefix(string(ev.Type), "background_job_group_")
		if ev.Type != EventCreated {
			k += fmt.Sprintf(":%d", len(ev.Group.Results))
		}
		out = append(out, k)
	}
	return out
}

func fixedNow() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

// Each policy over three tasks a, b, c ending in turn: the events, the status after
// each end, and whether a wait returns after each.
func TestPolicies(t *testing.T) {
	tests := []struct {
		policy Policy
		// status and waitDone after a ends, b ends, c ends.
		status   [3]Status
		waitDone [3]bool
		events   []string
	}{
		{policy: WaitAll, status: [3]Status{StatusRunning, StatusRunning, StatusCompleted}, waitDone: [3]bool{false, false, true},
			events: []string{"created", "updated:1", "updated:2", "completed:3"}},
		{policy: Detached, status: [3]Status{StatusRunning, StatusRunning, StatusCompleted}, waitDone: [3]bool{false, false, true},
			events: []string{"created", "updated:1", "updated:2", "completed:3"}},
		{policy: WaitAny, status: [3]Status{StatusCompleted, StatusCompleted, StatusCompleted}, waitDone: [3]bool{true, true, true},
			events: []string{"created", "completed:1", "updated:2", "updated:3"}},
		{policy: Manual, status: [3]Status{StatusRunning, StatusRunning, StatusRunning}, waitDone: [3]bool{false, false, true},
			events: []string{"created", "updated:1", "updated:2", "updated:3"}},
	}
	for _, tc := range tests {
		t.Run(string(tc.policy), func(t *testing.T) {
			f := newFake("a", "b", "c")
			rec := &recorder{}
			o := New(Config{Tasks: f, Now: fixedNow, OnEvent: rec.on})
			g, err := o.Create(CreateRequest{ParentSessionID: "s1", WaitPolicy: tc.policy, TaskIDs: []string{"a", "b", "c"}, Label: "three"})
			if err != nil {
				t.Fatal(err)
			}
			if g.ID != "group_1" || g.Status != StatusRunning || len(g.Results) != 0 {
				t.Fatalf("created %+v", g)
			}
			waited := make(chan Group, 1)
			go func() {
				if g, err := o.Wait(context.Background(), g.ID); err == nil {
					waited <- g
				}
			}()
			ends := []struct {
				id string
				st tasks.State
			}{{"a", tasks.StateCompleted}, {"b", tasks.StateFailed}, {"c", tasks.StateCancelled}}
			done := false
			for i, e := range ends {
				o.Observe(f.end(e.id, e.st, "out of "+e.id))
				got, _ := o.Get(g.ID)
				if got.Status != tc.status[i] {
					t.Errorf("after %s ended: status %s, want %s", e.id, got.Status, tc.status[i])
				}
				if !done {
					select {
					case <-waited:
						done = true
					case <-time.After(50 * time.Millisecond):
					}
				}
				if done != tc.waitDone[i] {
					t.Errorf("after %s ended: wait returned %v, want %v", e.id, done, tc.waitDone[i])
				}
			}
			if got := rec.kinds(); !slices.Equal(got, tc.events) {
				t.Errorf("events %v, want %v", got, tc.events)
			}
			final, _ := o.Get(g.ID)
			s := Summarize(final)
			if s.Total != 3 || s.Completed != 1 || s.Failed != 1 || s.Cancelled != 1 || s.Pending != 0 {
				t.Errorf("summary %+v", s)
			}
			want := []string{"- job a (a): completed - out of a", "- job b (b): failed - out of b", "- job c (c): cancelled - out of c"}
			if !slices.Equal(s.Lines, want) {
				t.Errorf("summary lines %q, want %q", s.Lines, want)
			}
		})
	}
}

// A task that ended before the group was made is its first result; a group whose tasks
// all ended completes as it is created. A repeated terminal event (a close after the
// end) adds nothing.
func TestCreateOverEndedTasks(t *testing.T) {
	f := newFake("a", "b")
	f.end("a", tasks.StateCompleted, "A")
	rec := &recorder{}
	o := New(Config{Tasks: f, Now: fixedNow, OnEvent: rec.on})
	g, err := o.Create(CreateRequest{WaitPolicy: WaitAll, TaskIDs: []string{"a", "b"}})
	if err != nil || len(g.Results) != 1 || g.Results[0].Summary != "A" {
		t.Fatalf("created %+v, %v", g, err)
	}
	ev := f.end("b", tasks.StateCompleted, "B")
	o.Observe(ev)
	ev.Type = tasks.EventClosed
	o.Observe(ev)
	if got, want := rec.kinds(), []string{"created", "completed:2"}; !slices.Equal(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	g2, err := o.Create(CreateRequest{WaitPolicy: WaitAny, TaskIDs: []string{"b"}})
	if err != nil || g2.ID != "group_2" {
		t.Fatalf("second group %+v, %v", g2, err)
	}
	if got, _ := o.Wait(context.Background(), g2.ID); got.Status != StatusCompleted {
		t.Fatalf("a group over ended tasks is %s", got.Status)
	}
}

func TestCreateRefuses(t *testing.T) {
	o := New(Config{Tasks: newFake("a")})
	for name, req := range map[string]CreateRequest{
		"no tasks":     {WaitPolicy: WaitAll},
		"unknown task": {WaitPolicy: WaitAll, TaskIDs: []string{"a", "zz"}},
		"named twice":  {WaitPolicy: WaitAll, TaskIDs: []string{"a", "a"}},
		"policy":       {WaitPolicy: "eventually", TaskIDs: []string{"a"}},
	} {
		if _, err := o.Create(req); !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("%s: err %v, want ErrInvalidRequest", name, err)
		}
	}
	if _, err := o.Wait(context.Background(), "group_9"); !errors.Is(err, ErrUnknownGroup) {
		t.Errorf("wait on an unknown group: %v", err)
	}
	if len(o.List()) != 0 {
		t.Errorf("refused requests made groups: %v", o.List())
	}
}

// Restored groups are listed; new ids follow theirs; waiting on one returns at once, as
// its tasks ran in an earlier run.
func TestRestored(t *testing.T) {
	restored := []Group{
		{ID: "group_3", WaitPolicy: WaitAll, TaskIDs: []string{"old1"}, Status: StatusRunning},
		{ID: "group_1", WaitPolicy: Detached, TaskIDs: []string{"old2"}, Status: StatusCompleted},
	}
	o := New(Config{Tasks: newFake("a"), Restored: restored})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	g, err := o.Wait(ctx, "group_3")
	if err != nil || g.Status != StatusRunning {
		t.Fatalf("wait on a restored running group: %+v, %v", g, err)
	}
	n, err := o.Create(CreateRequest{TaskIDs: []string{"a"}})
	if err != nil || n.ID != "group_4" || n.WaitPolicy != WaitAll {
		t.Fatalf("new group %+v, %v", n, err)
	}
	var ids []string
	for _, g := range o.List() {
		ids = append(ids, g.ID)
	}
	if !slices.Equal(ids, []string{"group_3", "group_1", "group_4"}) {
		t.Fatalf("list %v", ids)
	}
}

func TestParsePolicy(t *testing.T) {
	for in, want := range map[string]Policy{"": WaitAll, "wait-any": WaitAny, "DETACHED": Detached, "manual": Manual} {
		if got, err := ParsePolicy(in); err != nil || got != want {
			t.Errorf("ParsePolicy(%q) = %q, %v", in, got, err)
		}
	}
}

// An id handed out by NewID before the tasks started (the model's Agent batch) is the
// group's when Create names it; later groups get the next ids; an id in use is refused.
func TestCreateWithAnIDHandedOutBefore(t *testing.T) {
	o := New(Config{Tasks: newFake("a", "b", "c")})
	reserved := o.NewID()
	tests := []struct {
		name    string
		req     CreateRequest
		wantID  string
		wantErr error
	}{
		{"the reserved id", CreateRequest{ID: reserved, TaskIDs: []string{"a"}}, "group_1", nil},
		{"a new id after it", CreateRequest{TaskIDs: []string{"b"}}, "group_2", nil},
		{"an id in use", CreateRequest{ID: reserved, TaskIDs: []string{"c"}}, "", ErrInvalidRequest},
	}
	for _, tt := range tests {
		g, err := o.Create(tt.req)
		if !errors.Is(err, tt.wantErr) || g.ID != tt.wantID {
			t.Errorf("%s: group %q, err %v; want %q, %v", tt.name, g.ID, err, tt.wantID, tt.wantErr)
		}
	}
	if n := len(o.List()); n != 2 {
		t.Errorf("%d groups listed, want 2", n)
	}
}

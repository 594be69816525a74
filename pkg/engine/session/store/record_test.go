package store_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store/storetest"
)

// runtimeRecord stands for the session runtime's own record type: same JSON names, its own
// history entry type, no Extra.
type runtimeRecord struct {
	ID        string        `json:"id"`
	Cwd       string        `json:"cwd"`
	CreatedAt time.Time     `json:"createdAt"`
	UpdatedAt time.Time     `json:"updatedAt"`
	Messages  []llm.Message `json:"messages"`
	History   []struct {
		ID       string `json:"id"`
		Category string `json:"category"`
	} `json:"history"`
	SandboxSnapshotID string `json:"sandboxSnapshotId,omitempty"`
}

func TestRecordConversion(t *testing.T) {
	src := storetest.SampleRecord("s1")
	var rt runtimeRecord
	if err := src.Into(&rt); err != nil {
		t.Fatal(err)
	}
	if rt.ID != "s1" || len(rt.Messages) != 4 || len(rt.History) != 1 || rt.History[0].Category != "chat" || rt.SandboxSnapshotID != "snap-1" {
		t.Errorf("Into = %+v", rt)
	}
	back, err := store.RecordFrom(rt)
	if err != nil {
		t.Fatal(err)
	}
	if back.ID != "s1" || len(back.Messages) != 4 || back.SandboxSnapshotID != "snap-1" || len(back.Extra) != 0 {
		t.Errorf("RecordFrom = %+v", back)
	}
	if _, err := store.RecordFrom(map[string]any{"id": 5}); err == nil {
		t.Error("RecordFrom accepted a numeric id")
	}
}

func TestRecordJSONKeepsUnknownMembers(t *testing.T) {
	in := `{"id":"s1","cwd":"/w","createdAt":"2026-03-01T12:00:00Z","updatedAt":"2026-03-01T12:00:00Z",` +
		`"messages":[],"history":[],"futureField":{"a":[1,2]},"model":"m1"}`
	var r store.Record
	if err := json.Unmarshal([]byte(in), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Extra) != 2 || string(r.Extra["model"]) != `"m1"` {
		t.Fatalf("Extra = %v", r.Extra)
	}
	out, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"futureField":{"a":[1,2]}`) || !strings.Contains(string(out), `"model":"m1"`) {
		t.Errorf("unknown members dropped: %s", out)
	}
	// Extra cannot shadow a defined member.
	r.Extra["id"] = json.RawMessage(`"evil"`)
	out, _ = json.Marshal(r)
	var back store.Record
	if err := json.Unmarshal(out, &back); err != nil || back.ID != "s1" || strings.Count(string(out), `"id"`) != 1 {
		t.Errorf("Extra shadowed id: %s (%v)", out, err)
	}
}

package store_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
)

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

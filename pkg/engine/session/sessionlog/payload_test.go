package sessionlog_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/agent"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
)

func TestPayloadsAreContentAddressed(t *testing.T) {
	dir := t.TempDir()
	l := openLogger(t, dir, "s1", 64)
	long := strings.Repeat("long output ", 20)
	bigArray := make([]string, 20)
	for i := range bigArray {
		bigArray[i] = fmt.Sprintf("item %d", i)
	}
	data := map[string]any{
		"executionId": "e1",
		"round":       1,
		"tool":        map[string]any{"toolCallId": "call_0", "result": map[string]any{"output": long}},
		"list":        bigArray,
		"small":       []int{1, 2},
	}
	mustLog(t, l, sessionlog.EventToolExecutionResult, data)
	mustLog(t, l, sessionlog.EventToolExecutionResult, data) // same content: same files
	c := readAll(t, l.Path())
	var line struct {
		ExecutionID string `json:"executionId"`
		Tool        struct {
			ToolCallID string `json:"toolCallId"`
			Result     struct {
				Output sessionlog.PayloadRef `json:"output"`
			} `json:"result"`
		} `json:"tool"`
		List  sessionlog.PayloadRef `json:"list"`
		Small []int                 `json:"small"`
	}
	if err := json.Unmarshal(c.Entries[0].Data, &line); err != nil {
		t.Fatal(err)
	}
	if line.ExecutionID != "e1" || line.Tool.ToolCallID != "call_0" || len(line.Small) != 2 {
		t.Errorf("identifiers or small values left the line: %s", c.Entries[0].Data)
	}
	for _, ref := range []sessionlog.PayloadRef{line.Tool.Result.Output, line.List} {
		if err := ref.Validate("s1"); err != nil {
			t.Fatalf("reference %+v: %v", ref, err)
		}
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(ref.RelativePath)))
		if err != nil || int64(len(b)) != ref.ByteLength {
			t.Fatalf("payload %s: %v (len %d)", ref.RelativePath, err, len(b))
		}
		sum := sha256.Sum256(b)
		if hex.EncodeToString(sum[:]) != ref.SHA256 {
			t.Errorf("payload %s is not named by its digest", ref.RelativePath)
		}
	}
	files, _ := os.ReadDir(filepath.Join(dir, "s1.payloads"))
	if len(files) != 2 {
		t.Errorf("%d payload files, want 2 (deduplicated)", len(files))
	}
	hydrated, err := sessionlog.Hydrate(c.Entries[1].Data, "s1", sessionlog.DirPayloads(dir))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(data)
	assertSameJSON(t, hydrated, want)
}

func assertSameJSON(t *testing.T, got, want []byte) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if string(gb) != string(wb) {
		t.Errorf("JSON differs:\n got %s\nwant %s", gb, wb)
	}
}

// TestSecretsNeverReachDisk places a key in nested fields, in long strings that become
// payloads, inside JSON text inside a string, in provider options and in tool output,
// then greps every file the logger wrote.
func TestSecretsNeverReachDisk(t *testing.T) {
	const key = "sk-ant-api03-TOPSECRET0123456789abcdefghijklmnop"
	const openai = "sk-proj-Q1w2E3r4T5y6U7i8O9p0AsDfGhJkL"
	const pass = "correct-horse-battery-staple"
	dir := t.TempDir()
	l := openLogger(t, dir, "s1", 128)
	f := llm.Factory{NewID: func() string { return "m" }, Now: func() time.Time { return epoch }}
	long := strings.Repeat("filler ", 50) + "ANTHROPIC_API_KEY=" + key + strings.Repeat(" more", 50)
	events := []struct {
		ev   sessionlog.EventType
		data any
	}{
		{sessionlog.EventPreRun, sessionlog.PreRunData{Provider: "anthropic", Input: "use " + key + " please", HistoryLength: 1}},
		{sessionlog.EventProviderRequest, agent.Event{Type: agent.EventProviderRequest, ExecutionID: "e", Round: 2,
			Request: &agent.ProviderRequestData{Provider: "anthropic", Model: "m",
				Messages: []llm.Message{f.User("hello"), f.User("my key: " + key)},
				Base:     &agent.RequestBase{ExecutionID: "e", Round: 1, Messages: 1}}}},
		{sessionlog.EventProviderRequest, map[string]any{"executionId": "e", "round": 1,
			"options": map[string]any{"apiKey": key, "headers": map[string]any{"Authorization": "Bearer " + openai, "x-api-key": key}},
			"nested":  []any{map[string]any{"deeper": map[string]any{"password": pass, "note": long}}}}},
		{sessionlog.EventToolExecutionResult, map[string]any{"executionId": "e", "round": 1,
			"tool": map[string]any{"toolCallId": "c", "result": llm.ToolResult{Success: true, Output: long,
				Metadata: map[string]any{"body": `{"token":"` + pass + `","ok":true}`}}}}},
		{sessionlog.EventHistoryMutation, sessionlog.HistoryMutationData{Mutation: sessionlog.MutationData{Kind: "append"},
			Message: ptr(f.Tool(llm.ToolResultPart{ToolCallID: "c", Content: long + " " + openai}, nil))}},
		{sessionlog.EventAssistant, sessionlog.NewAssistantData("done", []llm.Message{f.User(strings.Repeat(key+" ", 10))}, 0)},
		{sessionlog.EventTextDelta, sessionlog.TextDeltaData{Delta: "Authorization: Bearer " + openai}},
	}
	for _, e := range events {
		mustLog(t, l, e.ev, e.data)
	}
	_ = l.Close()
	payloads, _ := os.ReadDir(filepath.Join(dir, "s1.payloads"))
	if len(payloads) == 0 {
		t.Fatal("no payload files: long strings were not externalized")
	}
	if n := assertNoSecretUnder(t, dir, key, openai, pass); n < 2 {
		t.Fatalf("only %d files checked", n)
	}
	c := readAll(t, l.Path())
	preRun, err := sessionlog.Hydrate(c.Entries[0].Data, "s1", sessionlog.DirPayloads(dir))
	if err != nil {
		t.Fatal(err)
	}
	request, err := sessionlog.Hydrate(c.Entries[1].Data, "s1", sessionlog.DirPayloads(dir))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(request), `"text":"my key: [REDACTED]"`) || !strings.Contains(string(preRun), `"input":"use [REDACTED] please"`) {
		t.Errorf("redaction removed more than the key text: %s\n%s", preRun, request)
	}
}

func ptr[T any](v T) *T { return &v }

package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestHeadlessRedactsAPIKeysFromEveryFile: API keys placed in the prompt, in tool output
// (a file the model Reads, a Bash echo), in the model's answer and in the provider profile
// of .robota/settings.json never appear in any file robota writes under .robota/ —
// records, logs, payload files — nor anywhere under HOME. The script profile is resumed
// once, so the record is also loaded and saved again. The anthropic profile runs against a
// fake server that checks the profile's key and header option really were used.
//
// The script profile carries no key inside "options": its options are decoded strictly
// (path, turnList) and an unknown "token" is a configuration error, so the profile's key
// is its apiKey. The anthropic profile carries one in options.headers.
func TestHeadlessRedactsAPIKeysFromEveryFile(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 3)) // fixed: the keys are arbitrary but reproducible
	keys := map[string]string{
		"prompt":       "sk-ant-api03-" + keyTail(rng),
		"file":         "sk-proj-" + keyTail(rng),
		"bash":         "sk-ant-api03-" + keyTail(rng),
		"apiKey":       "sk-ant-api03-" + keyTail(rng),
		"headerOption": "sk-proj-" + keyTail(rng),
	}

	t.Run("script profile", func(t *testing.T) {
		p := newProject(t)
		p.fullLog(t)               // the test reads streamed events in the log
		var secret strings.Builder // over the log's inline threshold, so it goes to a payload file
		for i := range 300 {
			if i == 150 {
				fmt.Fprintf(&secret, "OPENAI_API_KEY=%s\n", keys["file"])
				continue
			}
			fmt.Fprintf(&secret, "line %03d of an ordinary config file %s\n", i, strings.Repeat("-", 30))
		}
		p.writeFile(t, "secret.txt", secret.String())
		script := p.script(t, "redact", map[string]any{"PromptKey": keys["prompt"], "BashKey": keys["bash"]})
		settingsPath, settings := writeSettings(t, p, map[string]any{
			"type": "script", "apiKey": keys["apiKey"], "options": map[string]any{"path": script},
		})

		common := []string{"--allowedTools", "Read,Bash(echo *)", "--output-format", "stream-json"}
		first := p.mustRun(t, append([]string{"-p", "hello, my key is " + keys["prompt"] + " keep it safe"}, common...)...)
		id := sessionIDOf(t, first.Stdout)
		// The keys really went through the session: the tool results carried them.
		for _, k := range []string{"file", "bash"} {
			if !strings.Contains(first.Stdout, keys[k]) {
				t.Fatalf("the %s key never reached the session (tool output missing from stream-json):\n%s", k, first.Stdout)
			}
		}
		p.mustRun(t, append([]string{"-p", "again", "--resume", id}, common...)...)
		if texts := userTexts(p.record(t, id)); len(texts) != 2 || !strings.Contains(texts[0], "keep it safe") {
			t.Fatalf("record user messages = %q, want the two prompts (redacted)", texts)
		}
		if payloads := scanForKeys(t, p, keys, settingsPath, settings); payloads == 0 {
			t.Fatalf("no payload file was written: the large tool output did not exercise payload redaction")
		}
	})

	t.Run("anthropic profile", func(t *testing.T) {
		p := newProject(t)
		p.fullLog(t) // the test reads streamed events in the log
		srv := &fakeAnthropic{answer: "Noted: your key is " + keys["prompt"] + "."}
		ts := httptest.NewServer(srv)
		defer ts.Close()
		settingsPath, settings := writeSettings(t, p, map[string]any{
			"type": "anthropic", "apiKey": keys["apiKey"], "baseURL": ts.URL, "model": "claude-sonnet-4-5",
			"options": map[string]any{"headers": map[string]any{"X-Upstream-Token": keys["headerOption"]}},
		})
		res := resultObject(t, p.mustRun(t, "-p", "hello, my key is "+keys["prompt"]+" keep it safe", "--output-format", "json").Stdout)
		wantResult(t, "anthropic run", res, srv.answer)
		srv.mu.Lock()
		got := srv.headers
		srv.mu.Unlock()
		if got.Get("X-Api-Key") != keys["apiKey"] || got.Get("X-Upstream-Token") != keys["headerOption"] {
			t.Fatalf("the fake server did not receive the profile's apiKey and header option: %v", got)
		}
		scanForKeys(t, p, keys, settingsPath, settings)
	})
}

// writeSettings writes .robota/settings.json choosing profile and returns its path and bytes.
func writeSettings(t *testing.T, p *project, profile map[string]any) (string, []byte) {
	t.Helper()
	settings, err := json.MarshalIndent(map[string]any{
		"currentProvider": "main",
		"providers":       map[string]any{"main": profile},
	}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return p.writeFile(t, ".robota/settings.json", string(settings)), settings
}

// scanForKeys reads every file under the project's .robota/ and under HOME and fails
// when one holds a key (or either half of its random part). The settings file is the
// test's input and must be left exactly as written. It returns the number of payload files.
func scanForKeys(t *testing.T, p *project, keys map[string]string, settingsPath string, settings []byte) (payloads int) {
	t.Helper()
	if got, err := os.ReadFile(settingsPath); err != nil || !bytes.Equal(got, settings) {
		t.Fatalf("robota changed %s (err %v)", settingsPath, err)
	}
	scanned := 0
	for _, root := range []string{filepath.Join(p.Dir, ".robota"), p.Home} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || path == settingsPath {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			scanned++
			if strings.Contains(path, ".payloads"+string(filepath.Separator)) {
				payloads++
			}
			for where, key := range keys {
				tail := key[strings.LastIndexByte(key, '-')+1:]
				if bytes.Contains(data, []byte(tail[:20])) || bytes.Contains(data, []byte(tail[20:])) {
					t.Errorf("the %s key (or half of it) appears in %s", where, path)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("scanned %d files (%d payload files)", scanned, payloads)
	if len(p.sessionIDs(t)) == 0 || scanned < 2 {
		t.Fatalf("robota wrote no session record or log to scan")
	}
	return payloads
}

// fakeAnthropic answers every Messages request with one streamed text and keeps the
// last request's headers.
type fakeAnthropic struct {
	answer  string
	mu      sync.Mutex
	headers http.Header
}

func (f *fakeAnthropic) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	f.mu.Lock()
	f.headers = r.Header.Clone()
	f.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	event := func(name, data string) { fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, data) }
	event("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":40,"output_tokens":1}}}`)
	event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
	text, _ := json.Marshal(f.answer)
	event("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`+string(text)+`}}`)
	event("content_block_stop", `{"type":"content_block_stop","index":0}`)
	event("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":12}}`)
	event("message_stop", `{"type":"message_stop"}`)
}

// keyTail is 40 random letters and digits, with a digit (OpenAI-style keys have one).
func keyTail(rng *rand.Rand) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 40)
	for i := range b {
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	b[7] = '0' + byte(rng.IntN(10))
	return string(b)
}

// TestHeadlessRedactsKeysSplitAcrossTextDeltas: when the model streams a key in small
// chunks (as real providers stream tokens), the log's text_delta events, read in order,
// must not spell the key out either: a key is in the file if it can be read back from it.
func TestHeadlessRedactsKeysSplitAcrossTextDeltas(t *testing.T) {
	key := "sk-ant-api03-" + keyTail(rand.New(rand.NewPCG(6, 4)))
	p := newProject(t)
	p.fullLog(t) // the test reads streamed events in the log
	script := p.script(t, "redact_split", map[string]any{"Key": key})
	res := resultObject(t, p.mustRun(t, "-p", "my key is "+key+", repeat it", "--provider", "script", "--script", script,
		"--output-format", "json").Stdout)
	id, _ := res["session_id"].(string)
	tail := key[strings.LastIndexByte(key, '-')+1:]

	streams := map[string]*strings.Builder{} // executionId → joined deltas
	deltas := 0
	for _, e := range p.readLog(t, id) {
		if e.Event != "text_delta" {
			continue
		}
		var d struct {
			Delta       string `json:"delta"`
			ExecutionID string `json:"executionId"`
			Pieces      int    `json:"pieces"` // a line coalesces this many chunks
		}
		if err := json.Unmarshal(e.Data, &d); err != nil {
			t.Fatal(err)
		}
		if streams[d.ExecutionID] == nil {
			streams[d.ExecutionID] = &strings.Builder{}
		}
		streams[d.ExecutionID].WriteString(d.Delta)
		deltas += max(d.Pieces, 1)
	}
	if deltas < 5 {
		t.Fatalf("the log's text_delta events carry %d chunks; the test needs the answer streamed in chunks", deltas)
	}
	for exec, s := range streams {
		if strings.Contains(s.String(), tail[:20]) || strings.Contains(s.String(), tail[20:]) {
			t.Errorf("the text_delta events of execution %s in %s spell out the key: %q", exec, p.logPath(id), s.String())
		}
	}
}

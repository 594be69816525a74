package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHeadlessRedactsAPIKeysFromEveryFile: API keys placed in the prompt, in tool output
// (a file the model Reads, a Bash echo), in the model's answer and in the provider profile
// (apiKey and an options token) never appear in any file robota writes under .robota/ —
// records, logs, payload files — nor anywhere under HOME. The run is resumed once so the
// record is also loaded and saved again.
func TestHeadlessRedactsAPIKeysFromEveryFile(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 3)) // fixed: the keys are arbitrary but reproducible
	keys := map[string]string{
		"prompt":   "sk-ant-api03-" + keyTail(rng),
		"file":     "sk-proj-" + keyTail(rng),
		"bash":     "sk-ant-api03-" + keyTail(rng),
		"apiKey":   "sk-ant-api03-" + keyTail(rng),
		"optToken": "sk-proj-" + keyTail(rng),
	}
	p := newProject(t)
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
	settings, err := json.MarshalIndent(map[string]any{
		"currentProvider": "offline",
		"providers": map[string]any{"offline": map[string]any{
			"type": "script", "apiKey": keys["apiKey"],
			"options": map[string]any{"script": script, "token": keys["optToken"]},
		}},
	}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	settingsPath := p.writeFile(t, ".robota/settings.json", string(settings))

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

	// The settings file is our input: robota must leave it as written.
	if got, err := os.ReadFile(settingsPath); err != nil || !bytes.Equal(got, settings) {
		t.Fatalf("robota changed %s (err %v)", settingsPath, err)
	}
	rec := p.record(t, id)
	if texts := userTexts(rec); len(texts) != 2 || !strings.Contains(texts[0], "keep it safe") {
		t.Fatalf("record user messages = %q, want the two prompts (redacted)", texts)
	}

	scanned, payloads := 0, 0
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
	if payloads == 0 {
		t.Fatalf("no payload file was written: the large tool output did not exercise payload redaction")
	}
	for _, want := range []string{p.recordPath(id), p.logPath(id)} {
		if _, err := os.Stat(want); err != nil {
			t.Fatalf("expected %s: %v", want, err)
		}
	}
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
		}
		if err := json.Unmarshal(e.Data, &d); err != nil {
			t.Fatal(err)
		}
		if streams[d.ExecutionID] == nil {
			streams[d.ExecutionID] = &strings.Builder{}
		}
		streams[d.ExecutionID].WriteString(d.Delta)
		deltas++
	}
	if deltas < 5 {
		t.Fatalf("the log holds %d text_delta events; the test needs the answer streamed in chunks", deltas)
	}
	for exec, s := range streams {
		if strings.Contains(s.String(), tail[:20]) || strings.Contains(s.String(), tail[20:]) {
			t.Errorf("the text_delta events of execution %s in %s spell out the key: %q", exec, p.logPath(id), s.String())
		}
	}
}

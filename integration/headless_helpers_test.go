package integration

// Helpers for the headless acceptance tests (issue 6): a throwaway project with
// its own HOME, robota -p runs against the built binary, scripts generated from
// testdata/headless templates, and readers for the session record, the JSONL
// log and stream-json output.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"text/template"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
)

// runTimeout bounds one robota invocation so a hung run fails the test instead of the suite.
const runTimeout = 60 * time.Second

// project is a temp project directory with a private HOME, so no user settings,
// sessions or API keys of the machine running the tests leak in.
type project struct {
	Dir  string // the working directory of every run
	Home string
	// Scripts is where generated scripts go (outside Dir, so tools never see them).
	Scripts string
}

func newProject(t *testing.T) *project {
	t.Helper()
	root := t.TempDir()
	p := &project{Dir: filepath.Join(root, "proj"), Home: filepath.Join(root, "home"), Scripts: filepath.Join(root, "scripts")}
	for _, d := range []string{p.Dir, p.Home, p.Scripts} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

// fullLog makes the project's sessions write their logs at the full level
// (.robota/settings.local.json sessionLog.level), for tests that read streamed deltas, raw payloads or
// tool events in the log.
func (p *project) fullLog(t *testing.T) {
	t.Helper()
	p.writeFile(t, ".robota/settings.local.json", `{"sessionLog":{"level":"full"}}`)
}

// writeFile writes a file relative to the project directory and returns its absolute path.
func (p *project) writeFile(t *testing.T, rel, content string) string {
	t.Helper()
	path := filepath.Join(p.Dir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// script renders testdata/headless/{name}.yaml.tmpl with data (the project is
// available as .P) into the scripts directory and returns the script's path.
func (p *project) script(t *testing.T, name string, data map[string]any) string {
	t.Helper()
	tmpl, err := template.New(name + ".yaml.tmpl").Option("missingkey=error").
		ParseFiles(filepath.Join("testdata", "headless", name+".yaml.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	if data == nil {
		data = map[string]any{}
	}
	data["P"] = p
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, data); err != nil {
		t.Fatalf("render script %s: %v", name, err)
	}
	path := filepath.Join(p.Scripts, name+".yaml")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeScript writes a script given inline into the scripts directory and returns its
// path.
func (p *project) writeScript(t *testing.T, name, yaml string) string {
	t.Helper()
	path := filepath.Join(p.Scripts, name)
	if err := os.WriteFile(path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// env is the environment of every run: the test's, with a private HOME and no
// provider keys (runs must be offline and must not pick a real provider).
func (p *project) env() []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name == "HOME" || strings.HasSuffix(name, "_API_KEY") || strings.HasSuffix(name, "_AUTH_TOKEN") ||
			strings.HasSuffix(name, "_BASE_URL") {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "HOME="+p.Home)
}

// command prepares robota with args in the project directory.
func (p *project) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(binDir, "robota"), args...)
	cmd.Dir = p.Dir
	cmd.Env = p.env()
	// Tool subprocesses may outlive a killed robota; never wait on their pipes for long.
	cmd.WaitDelay = 2 * time.Second
	return cmd
}

type runResult struct {
	Stdout, Stderr string
	Code           int
}

// run runs robota to completion.
func (p *project) run(t *testing.T, args ...string) runResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := p.command(ctx, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := runResult{Stdout: stdout.String(), Stderr: stderr.String()}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr) && ctx.Err() == nil:
		res.Code = exitErr.ExitCode()
	default:
		t.Fatalf("robota %q: %v\nstderr:\n%s", args, err, res.Stderr)
	}
	return res
}

// mustRun runs robota and fails the test unless it exits 0.
func (p *project) mustRun(t *testing.T, args ...string) runResult {
	t.Helper()
	res := p.run(t, args...)
	if res.Code != 0 {
		t.Fatalf("robota %q exited %d\nstdout:\n%s\nstderr:\n%s", args, res.Code, res.Stdout, res.Stderr)
	}
	return res
}

func (p *project) sessionsDir() string { return filepath.Join(p.Dir, ".robota", "sessions") }
func (p *project) logsDir() string     { return filepath.Join(p.Dir, ".robota", "logs") }

// recordPath is the session's journal (see package store).
// replayLog replays the log entries of session id with its journal's conversations: a
// log written at the default (compact) level takes its messages from the journal.
func (p *project) replayLog(t *testing.T, id string, entries []sessionlog.Entry) (sessionlog.ReplayRecord, error) {
	t.Helper()
	segs, err := store.NewFileStore(p.sessionsDir(), store.Options{}).Segments(context.Background(), id)
	if err != nil {
		t.Fatalf("journal of %s: %v", id, err)
	}
	return sessionlog.ReplaySessionLog(entries, sessionlog.DirPayloads(p.logsDir()), sessionlog.ReplayOptions{Journal: segs})
}

func (p *project) recordPath(id string) string { return filepath.Join(p.sessionsDir(), id+".jsonl") }
func (p *project) logPath(id string) string    { return filepath.Join(p.logsDir(), id+".jsonl") }

// sessionIDs lists the ids of the session journals (temp files of interrupted saves excluded).
func (p *project) sessionIDs(t *testing.T) []string {
	t.Helper()
	entries, err := os.ReadDir(p.sessionsDir())
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range entries {
		if id, ok := strings.CutSuffix(e.Name(), ".jsonl"); ok && !strings.HasPrefix(e.Name(), ".") {
			ids = append(ids, id)
		}
	}
	return ids
}

// storedRecord is the part of a session record the tests look at.
type storedRecord struct {
	ID       string          `json:"id"`
	Cwd      string          `json:"cwd"`
	Messages []storedMessage `json:"messages"`
}

type storedMessage struct {
	ID      string `json:"id"`
	Role    string `json:"role"`
	State   string `json:"state"`
	Content []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		ToolCall *struct {
			ID string `json:"id"`
		} `json:"toolCall"`
		ToolResult *struct {
			Content string `json:"content"`
			IsError bool   `json:"isError"`
		} `json:"toolResult"`
	} `json:"content"`
}

// text joins the message's text parts and tool-result contents.
func (m storedMessage) text() string {
	var b strings.Builder
	for _, c := range m.Content {
		b.WriteString(c.Text)
		if c.ToolResult != nil {
			b.WriteString(c.ToolResult.Content)
		}
	}
	return b.String()
}

// parseRecord decodes a session journal's bytes with the store's own reader (which
// checks that it names id) and keeps what the tests look at.
func parseRecord(data []byte, id string) (storedRecord, error) {
	ms := store.NewMemoryStore(store.Options{})
	ms.SetJournal(id, data)
	full, err := ms.Load(context.Background(), id)
	if err != nil {
		return storedRecord{}, err
	}
	rec := storedRecord{ID: full.ID, Cwd: full.Cwd}
	b, err := json.Marshal(full.Messages)
	if err == nil {
		err = json.Unmarshal(b, &rec.Messages)
	}
	return rec, err
}

func (p *project) record(t *testing.T, id string) storedRecord {
	t.Helper()
	data, err := os.ReadFile(p.recordPath(id))
	if err != nil {
		t.Fatalf("session record: %v", err)
	}
	rec, err := parseRecord(data, id)
	if err != nil {
		t.Fatalf("session record %s: %v", p.recordPath(id), err)
	}
	return rec
}

// jsonLines parses output made of one JSON object a line; every line must parse.
func jsonLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("output line %d is not a JSON object: %v\n%s", n, err, sc.Text())
		}
		lines = append(lines, m)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// resultObject parses --output-format json output: exactly one result object.
func resultObject(t *testing.T, out string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(out))
	var obj map[string]any
	if err := dec.Decode(&obj); err != nil {
		t.Fatalf("json output is not a JSON object: %v\n%s", err, out)
	}
	var extra json.RawMessage
	if err := dec.Decode(&extra); err == nil {
		t.Fatalf("json output holds more than one JSON value:\n%s", out)
	}
	if obj["type"] != "result" {
		t.Fatalf("json output type = %v, want result:\n%s", obj["type"], out)
	}
	return obj
}

// logEntry is one line of a session log.
type logEntry struct {
	Sequence  int64           `json:"sequence"`
	SessionID string          `json:"sessionId"`
	Event     string          `json:"event"`
	Data      json.RawMessage `json:"data"`
}

// readLog parses a session log: every line must be complete and parse.
func (p *project) readLog(t *testing.T, id string) []logEntry {
	t.Helper()
	data, err := os.ReadFile(p.logPath(id))
	if err != nil {
		t.Fatal(err)
	}
	complete, partial := splitLines(data)
	if len(partial) > 0 {
		t.Fatalf("log %s ends with a partial line after a clean exit: %q", p.logPath(id), partial)
	}
	var out []logEntry
	for i, l := range complete {
		var e logEntry
		if err := json.Unmarshal(l, &e); err != nil {
			t.Fatalf("log %s line %d: %v", p.logPath(id), i+1, err)
		}
		out = append(out, e)
	}
	return out
}

// splitLines returns the newline-terminated lines of data and what follows the last newline.
func splitLines(data []byte) (complete [][]byte, partial []byte) {
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return complete, data
		}
		complete = append(complete, data[:i])
		data = data[i+1:]
	}
}

// hydrate replaces payload references ({"kind":"external-payload",...}) in a log
// value with the payload file's content, read relative to the log directory.
func (p *project) hydrate(t *testing.T, v any) any {
	t.Helper()
	switch x := v.(type) {
	case map[string]any:
		if x["kind"] == "external-payload" {
			rel, _ := x["relativePath"].(string)
			data, err := os.ReadFile(filepath.Join(p.logsDir(), filepath.FromSlash(rel)))
			if err != nil {
				t.Fatalf("payload reference %v: %v", x, err)
			}
			var inner any
			if err := json.Unmarshal(data, &inner); err != nil {
				t.Fatalf("payload %s: %v", rel, err)
			}
			return p.hydrate(t, inner)
		}
		for k, c := range x {
			x[k] = p.hydrate(t, c)
		}
	case []any:
		for i, c := range x {
			x[i] = p.hydrate(t, c)
		}
	}
	return v
}

// withoutSandbox turns the command sandbox off for p (in .robota/settings.local.json): a
// sandboxed command has a PID namespace of its own, so a test that reads a command's
// pids or parent from outside must run it unsandboxed. What it tests holds either way.
func (p *project) withoutSandbox(t *testing.T) {
	t.Helper()
	p.writeFile(t, ".robota/settings.local.json", `{"sandbox": {"enabled": false}}`)
}

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/template"
)

// runSession copies examples/demo to a scratch directory and lets a scripted
// model fix its bug with real tools, then resumes the session. It returns the
// next step number.
func runSession(bin, examples string) (int, error) {
	tmp, dir, err := scratchProject(examples, "robota-demo-project-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(tmp)
	scriptPath, err := renderScript(filepath.Join(examples, "demo.script.yaml"), tmp, dir)
	if err != nil {
		return 0, err
	}
	robota := func(args ...string) (string, error) {
		base := []string{"--provider", "script", "--script", scriptPath, "--output-format", "stream-json",
			"--allowedTools", "Read,Glob,Grep,Edit,Bash(go test *)", "--disallowedTools", "Bash(rm *)"}
		cmd := exec.Command(filepath.Join(bin, "robota"), append(base, args...)...)
		cmd.Dir = dir
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		runErr := cmd.Run()
		id, renderErr := render(&stdout)
		if runErr != nil {
			return id, fmt.Errorf("robota %s: %v\n%s", strings.Join(args, " "), runErr, stderr.String())
		}
		return id, renderErr
	}

	step(1, "A scratch copy of examples/demo: a Go package whose tests fail")
	say("%s", dir)
	say("robota -p \"The tests fail. Find and fix the bug.\" --provider script --script demo.script.yaml \\")
	say("    --allowedTools 'Read,Glob,Grep,Edit,Bash(go test *)' --disallowedTools 'Bash(rm *)' --output-format stream-json")

	step(2, "The session: read, test, edit, test again, and one command denied by a rule")
	id, err := robota("-p", "The tests fail. Find and fix the bug.")
	if err != nil {
		return 0, err
	}

	step(3, "The fix is on disk: go test, run by the demo itself")
	test := exec.Command("go", "test", "./...")
	test.Dir = dir
	out, err := test.CombinedOutput()
	say("$ go test ./...  →  %s", strings.TrimSpace(string(out)))
	if err != nil {
		return 0, fmt.Errorf("tests still fail after the session: %v", err)
	}

	step(4, "Resume the session: the context is nearly full, so it auto-compacts first")
	say("robota -p \"What did you change?\" --resume %s", id)
	if _, err := robota("-p", "What did you change?", "--resume", id); err != nil {
		return 0, err
	}

	step(5, "What was persisted")
	record := filepath.Join(dir, ".robota", "sessions", id+".jsonl") // the store's journal
	logPath := filepath.Join(dir, ".robota", "logs", id+".jsonl")
	for _, p := range []string{record, logPath} {
		st, err := os.Stat(p)
		if err != nil {
			return 0, err
		}
		rel, _ := filepath.Rel(dir, p)
		say("%-60s %7d bytes", rel, st.Size())
	}
	events, err := countLines(logPath)
	if err != nil {
		return 0, err
	}
	say("the log holds %d events (provider requests, raw payloads, tool calls, history mutations, compaction)", events)
	journal, err := os.ReadFile(record)
	if err != nil {
		return 0, err
	}
	say("the session journal has %d commits over %d lines: every round was appended and fsynced before the next model request, nothing rewritten",
		bytes.Count(journal, []byte(`{"k":"c"`)), bytes.Count(journal, []byte("\n")))
	say("the journal is what --resume/--continue load (a kill -9 loses at most the round in flight); secrets are redacted in both")
	return runSandbox(bin, dir, 6)
}

// scratchProject copies examples/demo to a new temporary directory tmp (the caller
// removes it) as tmp/wordstats, the project directory dir.
func scratchProject(examples, prefix string) (tmp, dir string, err error) {
	if tmp, err = os.MkdirTemp("", prefix); err != nil {
		return "", "", err
	}
	dir = filepath.Join(tmp, "wordstats")
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(examples, "demo"))); err != nil {
		os.RemoveAll(tmp)
		return "", "", fmt.Errorf("copy examples/demo: %w", err)
	}
	return tmp, dir, nil
}

func renderScript(src, tmp, dir string) (string, error) {
	tpl, err := template.ParseFiles(src)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if err := tpl.Execute(&buf, struct{ Dir string }{dir}); err != nil {
		return "", err
	}
	path := filepath.Join(tmp, "demo.script.yaml")
	return path, os.WriteFile(path, buf.Bytes(), 0o644)
}

func countLines(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		n++
	}
	return n, sc.Err()
}

// render pretty-prints robota's stream-json output and returns the session id.
func render(r io.Reader) (string, error) {
	var id string
	dec := json.NewDecoder(r)
	for dec.More() {
		var line map[string]any
		if err := dec.Decode(&line); err != nil {
			return id, fmt.Errorf("stream-json: %w", err)
		}
		id, _ = line["session_id"].(string)
		indent := ""
		if parent, _ := line["parent_tool_use_id"].(string); parent != "" {
			indent = "    ↳ " // a subagent's message
		}
		switch line["type"] {
		case "system":
			if line["subtype"] == "init" {
				say("session %s · model %v · mode %v", id, line["model"], line["permissionMode"])
			} else if line["subtype"] == "compact_boundary" {
				meta, _ := line["compact_metadata"].(map[string]any)
				say("⟲ context compacted (%v; %v tokens before)", meta["trigger"], meta["pre_tokens"])
			}
		case "assistant":
			msg, _ := line["message"].(map[string]any)
			for _, b := range blocks(msg) {
				switch b["type"] {
				case "text":
					say("%s● %s", indent, b["text"])
				case "tool_use":
					say("%s  ⚙ %v %s", indent, b["name"], shorten(compactJSON(b["input"]), 160))
				}
			}
		case "user":
			msg, _ := line["message"].(map[string]any)
			for _, b := range blocks(msg) {
				text, _ := b["content"].(string)
				lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
				mark := "✓"
				if isErr, _ := b["is_error"].(bool); isErr {
					mark = "✗"
				}
				more := ""
				if len(lines) > 1 {
					more = fmt.Sprintf("  (+%d lines)", len(lines)-1)
				}
				say("%s    %s %s%s", indent, mark, shorten(lines[0], 160), more)
			}
		case "result":
			say("result: %v · %v turns · %v ms · permission_denials: %s", line["subtype"], line["num_turns"],
				line["duration_ms"], denials(line["permission_denials"]))
		}
	}
	return id, nil
}

func blocks(msg map[string]any) []map[string]any {
	raw, _ := msg["content"].([]any)
	out := make([]map[string]any, 0, len(raw))
	for _, b := range raw {
		if m, ok := b.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func denials(v any) string {
	list, _ := v.([]any)
	if len(list) == 0 {
		return "none"
	}
	var parts []string
	for _, d := range list {
		m, _ := d.(map[string]any)
		in, _ := json.Marshal(m["tool_input"])
		parts = append(parts, fmt.Sprintf("%v %s", m["tool_name"], in))
	}
	return strings.Join(parts, "; ")
}

// shorten cuts s to n runes for display.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// compactJSON renders v as JSON without HTML escapes (shell commands hold < > &).
func compactJSON(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSpace(b.String())
}

package permission

import (
	"encoding/json"
	"strings"
	"testing"
)

func benchEvaluator(b *testing.B) *Evaluator {
	rules, err := Rules(Layer{Source: Source{Name: "bench"},
		Allow: []string{"Bash(npm test *)", "Bash(git status)", "Bash(ls *)", "Bash(echo *)", "Edit(/src/**)"},
		Deny:  []string{"Bash(rm *)", "Bash(curl *)", "Read(~/.ssh/**)", "Read(//etc/**)"}})
	if err != nil {
		b.Fatal(err)
	}
	return New(Config{Mode: ModeDefault, Rules: rules, ProjectRoot: b.TempDir(), Home: b.TempDir()})
}

func benchRequest(tool string, kv map[string]string) Request {
	in, _ := json.Marshal(kv)
	return Request{Tool: tool, Input: in}
}

func BenchmarkEvaluateBashSimple(b *testing.B) {
	ev := benchEvaluator(b)
	req := benchRequest("Bash", map[string]string{"command": "npm test -- --watch=false"})
	for b.Loop() {
		ev.Evaluate(req)
	}
}

func BenchmarkEvaluateBashCompound(b *testing.B) {
	ev := benchEvaluator(b)
	req := benchRequest("Bash", map[string]string{"command": "ls -la && echo $(git status) | timeout 5 npm test > /dev/null 2>&1; echo done"})
	for b.Loop() {
		ev.Evaluate(req)
	}
}

func BenchmarkEvaluateBashLong(b *testing.B) {
	ev := benchEvaluator(b)
	req := benchRequest("Bash", map[string]string{"command": strings.Repeat("echo $(ls -la) && ", 500) + "ls"})
	for b.Loop() {
		ev.Evaluate(req)
	}
}

func BenchmarkEvaluateRead(b *testing.B) {
	ev := benchEvaluator(b)
	req := benchRequest("Read", map[string]string{"file_path": "/etc/hosts"})
	for b.Loop() {
		ev.Evaluate(req)
	}
}

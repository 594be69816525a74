package permission

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
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

// BenchmarkEvaluateBashOperands measures what checking commands' paths against Read
// and Edit rules costs: the same line under rules with path deny rules and under
// Bash rules only, timed in the same run, reported as a ratio.
func BenchmarkEvaluateBashOperands(b *testing.B) {
	with := benchEvaluator(b)
	rules, err := Rules(Layer{Source: Source{Name: "bench"},
		Allow: []string{"Bash(cat *)", "Bash(grep *)", "Bash(sed *)", "Bash(sort *)"}})
	if err != nil {
		b.Fatal(err)
	}
	without := New(Config{Mode: ModeDefault, Rules: rules, ProjectRoot: b.TempDir(), Home: b.TempDir()})
	req := benchRequest("Bash", map[string]string{"command": "cat a.txt b.txt | grep -n foo src/a.go && sed -n 1,5p a.txt | sort -u > /dev/null"})
	var base, cost time.Duration
	for b.Loop() {
		t0 := time.Now()
		without.Evaluate(req)
		t1 := time.Now()
		with.Evaluate(req)
		base += t1.Sub(t0)
		cost += time.Since(t1)
	}
	b.ReportMetric(float64(cost)/float64(base), "x-of-no-path-rules")
}

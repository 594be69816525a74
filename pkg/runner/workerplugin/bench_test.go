package workerplugin_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	robotav1 "github.com/robota-sdk/robota-go/gen/robota/v1"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
	"github.com/robota-sdk/robota-go/pkg/runner/worker"
	"github.com/robota-sdk/robota-go/pkg/sandbox"
)

// BenchmarkAgentRoundOverTheWire measures one agent job of two model calls and one tool
// round (a Read, decided by the host) run by a worker through go-plugin's gRPC
// connection and broker, against the same job run by the same worker in process, in the
// same run: wire-x-of-inproc is the ratio, wire-overhead-us/job the difference. (The
// connection is go-plugin's in-memory test connection without TLS; a launched worker
// adds AutoMTLS and a process boundary.)
func BenchmarkAgentRoundOverTheWire(b *testing.B) {
	dir := b.TempDir()
	file := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(file, []byte("hello\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	script := []llm.ChatResponse{toolTurn("c1", "Read", map[string]string{"file_path": file}), textTurn("done")}
	inproc := worker.New(nil)
	wire := dispenseWorker(b, worker.New(nil))
	run := func(r runnerapi.Runner) time.Duration {
		start := time.Now()
		err := r.Start(context.Background(), runnerapi.Job{ID: "bench", Host: &engineHost{script: script},
			Agent: &runnerapi.AgentJob{Prompt: "read", Cwd: dir, Tools: []string{"Read"}}},
			func(ev runnerapi.Event) error {
				if ev.Kind == runnerapi.EventFailed {
					b.Fatalf("job failed: %+v", ev)
				}
				return nil
			})
		if err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	run(inproc) // warm both: the host service starts with the first agent job
	run(wire)
	var tIn, tWire time.Duration
	b.ResetTimer()
	for range b.N {
		tIn += run(inproc)
		tWire += run(wire)
	}
	b.StopTimer()
	b.ReportMetric(float64(tWire)/float64(tIn), "wire-x-of-inproc")
	b.ReportMetric(float64(tWire-tIn)/float64(b.N)/1e3, "wire-overhead-us/job")
	b.ReportMetric(float64(tIn)/float64(b.N)/1e3, "inproc-us/job")
}

// BenchmarkAgentBashOverTheWire measures an agent job of one sandboxed Bash round (`true`)
// through go-plugin, with the engine sending no policy with the call (as before issue
// 27: the job's own holds) and with one like a session's (a hidden file and the
// protected paths of a project and a home, 34 paths), alternating in one run:
// percall-overhead-us/job is the difference, policy-bytes the execute step's added size.
func BenchmarkAgentBashOverTheWire(b *testing.B) {
	if ok, why := sandbox.Available(); !ok {
		b.Skip(why)
	}
	dir := b.TempDir()
	policy := &runnerapi.Sandbox{Hide: []string{filepath.Join(dir, "secret.txt")}}
	for _, rel := range []string{".git/hooks", ".git/config", ".git/info", ".claude", ".robota/settings.json",
		".robota/settings.local.json", ".robota/skills", ".robota/agents", ".robota/commands", ".agents/skills",
		".agents/agents", ".agents/commands", ".vscode", ".idea", ".gitmodules", ".mcp.json", ".claude.json", ".bashrc",
		".zshrc", ".profile"} {
		policy.ReadOnly = append(policy.ReadOnly, filepath.Join(dir, rel))
	}
	for _, rel := range []string{".bashrc", ".bash_profile", ".bash_login", ".profile", ".zshrc", ".zprofile",
		".zshenv", ".zlogin", ".gitconfig", ".ripgreprc", ".claude", ".robota/settings.json", ".ssh/authorized_keys"} {
		policy.ReadOnly = append(policy.ReadOnly, filepath.Join("/home/someone", rel))
	}
	size := proto.Size(&robotav1.CommandSandbox{Hide: policy.Hide, ReadOnly: policy.ReadOnly})
	script := []llm.ChatResponse{toolTurn("c1", "Bash", map[string]string{"command": "true"}), textTurn("done")}
	wire := dispenseWorker(b, worker.New(nil))
	run := func(call *runnerapi.Sandbox) time.Duration {
		start := time.Now()
		err := wire.Start(context.Background(), runnerapi.Job{ID: "bench", Host: walkingHost{engineHost: &engineHost{script: script}, callSandbox: call},
			Sandbox: policy, Agent: &runnerapi.AgentJob{Prompt: "run", Cwd: dir, Tools: []string{"Bash"}}},
			func(ev runnerapi.Event) error {
				if ev.Kind == runnerapi.EventFailed {
					b.Fatalf("job failed: %+v", ev)
				}
				return nil
			})
		if err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	run(nil) // warm: the host service starts with the first agent job
	var tNone, tCall time.Duration
	b.ResetTimer()
	for range b.N {
		tNone += run(nil)
		tCall += run(policy)
	}
	b.StopTimer()
	b.ReportMetric(float64(tNone)/float64(b.N)/1e3, "nopolicy-us/job")
	b.ReportMetric(float64(tCall)/float64(b.N)/1e3, "percall-us/job")
	b.ReportMetric(float64(tCall-tNone)/float64(b.N)/1e3, "percall-overhead-us/job")
	b.ReportMetric(float64(size), "policy-bytes")
}

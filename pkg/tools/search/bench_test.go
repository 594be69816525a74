package search

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/tools/workspace"
)

// The benchmarks search one real tree, the Go distribution's src (about 11k files), or
// $ROBOTA_BENCH_TREE. Each iteration runs our tool and then the reference commands on the
// same tree, so the reported ratios (x_rg, x_grep, x_find) come from the same run and the
// same page-cache state; ns/op counts our tool only.

func benchTree(b *testing.B) string {
	b.Helper()
	if dir := os.Getenv("ROBOTA_BENCH_TREE"); dir != "" {
		return dir
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("go env GOROOT: %v", err)
	}
	return strings.TrimSpace(string(out)) + "/src"
}

// baseline is a reference command whose time is reported next to ours.
type baseline struct {
	metric string // ratio metric name, e.g. "x_rg"
	argv   []string
	total  time.Duration
}

func (bl *baseline) run(b *testing.B, dir string) {
	cmd := exec.Command(bl.argv[0], bl.argv[1:]...)
	cmd.Dir = dir
	start := time.Now()
	out, err := cmd.Output()
	bl.total += time.Since(start)
	// grep and rg exit 1 on no match; any output means the command worked.
	if err != nil && len(out) == 0 {
		b.Fatalf("%v: %v", bl.argv, err)
	}
}

// measure runs ours and the baselines b.N times each (interleaved), after one warm-up run of
// everything, and reports our time per op plus each baseline's time and ratio.
func measure(b *testing.B, dir string, ours func(), baselines ...*baseline) {
	b.Helper()
	ours()
	for _, bl := range baselines {
		if _, err := exec.LookPath(bl.argv[0]); err != nil {
			b.Skipf("%s not on PATH", bl.argv[0])
		}
		bl.run(b, dir)
		bl.total = 0
	}
	var oursTotal time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		ours()
		oursTotal += time.Since(start)
		b.StopTimer()
		for _, bl := range baselines {
			bl.run(b, dir)
		}
		b.StartTimer()
	}
	b.StopTimer()
	for _, bl := range baselines {
		name := strings.TrimPrefix(bl.metric, "x_")
		b.ReportMetric(float64(bl.total.Nanoseconds())/float64(b.N), name+"-ns/op")
		b.ReportMetric(float64(oursTotal)/float64(bl.total), bl.metric)
	}
}

// benchPatterns are a literal and a regular expression, both written so that grep -E, rg and
// RE2 read them the same way.
var benchPatterns = []struct{ name, pattern string }{
	{"literal", "ErrNotExist"},
	{"regex", `func \(\w+ \*\w+\) Close\(\)`},
}

func BenchmarkGrepContent(b *testing.B) {
	dir := benchTree(b)
	ws, err := workspace.New(dir)
	if err != nil {
		b.Skip(err)
	}
	rgPath, rgErr := exec.LookPath("rg")
	for _, backendName := range []string{"ripgrep", "go"} {
		for _, p := range benchPatterns {
			b.Run(backendName+"/"+p.name, func(b *testing.B) {
				if rgErr != nil {
					b.Skip("rg not on PATH: no reference to compare with")
				}
				g, err := NewGrep(GrepConfig{Workspace: ws, RipgrepPath: rgPath, NoRipgrep: backendName == "go"})
				if err != nil {
					b.Fatal(err)
				}
				args, _ := json.Marshal(map[string]any{"pattern": p.pattern, "output_mode": "content"})
				ours := func() {
					if res := g.Execute(context.Background(), args); !res.Success || res.Metadata["numFiles"] == 0 {
						b.Fatalf("search failed or found nothing: %s%s", res.Error, res.Output)
					}
				}
				measure(b, dir, ours,
					&baseline{metric: "x_rg", argv: []string{"rg", "-n", "-e", p.pattern, "."}},
					&baseline{metric: "x_grep", argv: []string{"grep", "-rnE", "-e", p.pattern, "."}},
				)
			})
		}
	}
}

func BenchmarkGlob(b *testing.B) {
	dir := benchTree(b)
	ws, err := workspace.New(dir)
	if err != nil {
		b.Skip(err)
	}
	g, err := NewGlob(GlobConfig{Workspace: ws})
	if err != nil {
		b.Fatal(err)
	}
	args := json.RawMessage(`{"pattern":"**/*.go"}`)
	ours := func() {
		if res := g.Execute(context.Background(), args); !res.Success || res.Metadata["numFiles"] == 0 {
			b.Fatalf("glob failed or found nothing: %s", res.Error)
		}
	}
	measure(b, dir, ours,
		&baseline{metric: "x_rg", argv: []string{"rg", "--files", "--glob", "*.go", "."}},
		&baseline{metric: "x_find", argv: []string{"find", ".", "-name", "*.go", "-type", "f"}},
	)
}

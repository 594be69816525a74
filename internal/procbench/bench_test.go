package procbench

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// writeScript is the scripted model of the two-turn Write run: a Write, then the answer.
const writeScript = `name: procbench-write
turns:
  - text: "Writing the file."
    toolCalls:
      - {id: toolu_w, name: Write, input: {file_path: "%s", content: "hello\n"}}
  - text: "Done."
`

// binaries are the robota under test and the hello-world baseline built the same way.
// inits links what robota links and runs only the package inits (BuildInitsOnly).
type binaries struct{ robota, hello, inits string }

func buildBinaries(b *testing.B) binaries {
	b.Helper()
	cfg := BuildConfig{Tags: os.Getenv("ROBOTA_BENCH_TAGS"), CGO: os.Getenv("ROBOTA_BENCH_CGO")}
	dir := b.TempDir()
	bins := binaries{robota: filepath.Join(dir, "robota"), hello: filepath.Join(dir, "hello"), inits: filepath.Join(dir, "inits")}
	if binDir := os.Getenv("ROBOTA_BIN_DIR"); binDir != "" {
		bins.robota = filepath.Join(binDir, "robota")
	} else if err := Build(context.Background(), "../..", "./cmd/cli", bins.robota, cfg); err != nil {
		b.Fatal(err)
	}
	if err := Build(context.Background(), "../..", "./internal/procbench/hello", bins.hello, cfg); err != nil {
		b.Fatal(err)
	}
	if err := BuildInitsOnly(context.Background(), "../..", "./cmd/cli", bins.inits, cfg); err != nil {
		b.Fatal(err)
	}
	b.Logf("robota %s, hello built with tags %q CGO_ENABLED=%q; page cache evicted (fadvise DONTNEED), one warm-up run each, then medians of paired runs; peak RSS is VmHWM at exit (ptrace)",
		bins.robota, cfg.Tags, cfg.CGO)
	return bins
}

// BenchmarkProcess runs `robota --version` and a two-turn `robota -p` Write run (script
// provider), each paired with a run of the hello-world binary, and reports medians: wall
// ms and peak RSS KiB of robota and of hello, and robota's ratios to hello. "inits" runs
// a program that links every package robota links (from this source tree) and runs only
// their inits: the floor under --version that no deferral inside the binary can go below
// (issue 29), short of not linking packages.
func BenchmarkProcess(b *testing.B) {
	bins := buildBinaries(b)
	b.Run("inits", func(b *testing.B) {
		measure(b, bins, func(*testing.B) *exec.Cmd { return exec.Command(bins.inits) })
	})
	b.Run("version", func(b *testing.B) {
		measure(b, bins, func(*testing.B) *exec.Cmd { return exec.Command(bins.robota, "--version") })
	})
	b.Run("write", func(b *testing.B) {
		root := b.TempDir()
		home := filepath.Join(root, "home")
		if err := os.MkdirAll(home, 0o755); err != nil {
			b.Fatal(err)
		}
		i := 0
		measure(b, bins, func(b *testing.B) *exec.Cmd {
			i++
			proj := filepath.Join(root, fmt.Sprintf("proj%d", i))
			if err := os.MkdirAll(proj, 0o755); err != nil {
				b.Fatal(err)
			}
			script := filepath.Join(root, fmt.Sprintf("script%d.yaml", i))
			target := filepath.Join(proj, "hello.txt")
			if err := os.WriteFile(script, fmt.Appendf(nil, writeScript, target), 0o644); err != nil {
				b.Fatal(err)
			}
			cmd := exec.Command(bins.robota, "-p", "write hello.txt", "--provider", "script", "--script", script,
				"--permission-mode", "acceptEdits")
			cmd.Dir = proj
			cmd.Env = append(os.Environ(), "HOME="+home)
			b.Cleanup(func() {
				if got, err := os.ReadFile(target); err != nil || string(got) != "hello\n" {
					b.Errorf("the Write run did not write %s: %q %v", target, got, err)
				}
			})
			return cmd
		})
	})
}

// measure evicts the binaries from the page cache, runs the measured one and hello once, then b.N paired
// iterations: robota and hello each run once for wall time and once more under ptrace
// for the peak RSS (PeakRSS; a traced run is slower, so it is not timed).
func measure(b *testing.B, bins binaries, robota func(*testing.B) *exec.Cmd) {
	b.Helper()
	for _, p := range []string{bins.robota, bins.hello, bins.inits} {
		if err := Evict(p); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := Run(robota(b)); err != nil {
		b.Fatal(err)
	}
	if _, err := Run(exec.Command(bins.hello)); err != nil {
		b.Fatal(err)
	}
	var ours, base []Sample
	run := func(cmd func() *exec.Cmd) Sample {
		s, err := Run(cmd())
		if err != nil {
			b.Fatal(err)
		}
		if s.MaxRSSKiB, err = PeakRSS(cmd()); err != nil {
			b.Fatal(err)
		}
		return s
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ours = append(ours, run(func() *exec.Cmd { return robota(b) }))
		base = append(base, run(func() *exec.Cmd { return exec.Command(bins.hello) }))
	}
	b.StopTimer()
	o, h := Median(ours), Median(base)
	b.ReportMetric(float64(o.Wall.Microseconds())/1000, "wall-ms")
	b.ReportMetric(float64(o.MaxRSSKiB), "peak-rss-KiB")
	b.ReportMetric(float64(h.Wall.Microseconds())/1000, "hello-wall-ms")
	b.ReportMetric(float64(h.MaxRSSKiB), "hello-peak-rss-KiB")
	b.ReportMetric(float64(o.Wall)/float64(h.Wall), "wall-x-hello")
	b.ReportMetric(float64(o.MaxRSSKiB)/float64(h.MaxRSSKiB), "rss-x-hello")
}

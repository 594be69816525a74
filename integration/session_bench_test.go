package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/session/store"
	"github.com/robota-sdk/robota-go/pkg/engine/session/store/storetest"
)

// benchLegacyEnv makes BenchmarkResumeOneTurn10k store its session in the whole-record
// format of earlier versions, so the same benchmark measures an older robota binary
// (ROBOTA_BIN_DIR pointing at its build) for before/after figures.
const benchLegacyEnv = "ROBOTA_BENCH_LEGACY_RECORD"

// benchSessionEnv makes TestWriteBenchSession write the 10k-message session into the
// project directory it names.
const benchSessionEnv = "ROBOTA_BENCH_SESSION_PROJECT"

// TestWriteBenchSession is not a test: it writes BenchmarkResumeOneTurn10k's session
// (storetest.SmallRounds(10000) as session "bench-10k") when benchSessionEnv is set.
func TestWriteBenchSession(t *testing.T) {
	projectDir := os.Getenv(benchSessionEnv)
	if projectDir == "" {
		t.Skip("helper process for BenchmarkResumeOneTurn10k")
	}
	const id = "bench-10k"
	msgs := storetest.SmallRounds(10000)
	dir := store.ProjectDir(projectDir)
	if os.Getenv(benchLegacyEnv) != "" {
		rec := map[string]any{"id": id, "cwd": projectDir, "createdAt": storetest.Epoch, "updatedAt": storetest.Epoch,
			"messages": msgs, "history": []any{}, "systemPrompt": msgs[0].Text()}
		data, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, id+".json"), data, 0o600); err != nil {
			t.Fatal(err)
		}
		return
	}
	st := store.NewFileStore(dir, store.Options{})
	if err := st.Append(context.Background(), &store.Delta{ID: id,
		Header: &store.Record{Cwd: projectDir, SystemPrompt: msgs[0].Text()}, Messages: msgs}); err != nil {
		t.Fatal(err)
	}
}

// procRun is one measured robota process.
type procRun struct {
	wall time.Duration
	// cpu is the process's user and system time: on a machine shared with other work the
	// wall time waits for the CPU as well, cpu does not.
	cpu     time.Duration
	peakRSS int64 // bytes
	written int64 // bytes the process caused to be written to storage (rusage oublock)
}

// measure runs robota to completion and reads its wall time, peak RSS and bytes written
// from the child's rusage.
func measure(b *testing.B, p *project, args ...string) procRun {
	b.Helper()
	return measureWithin(b, p, runTimeout, args...)
}

func measureWithin(b *testing.B, p *project, timeout time.Duration, args ...string) procRun {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := p.command(ctx, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		b.Fatalf("robota %q: %v\nstdout %s\nstderr %s", args, err, stdout.String(), stderr.String())
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		b.Fatal("no rusage")
	}
	return procRun{wall: wall, cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime(),
		peakRSS: ru.Maxrss << 10, written: ru.Oublock * 512}
}

// dirSize sums the sizes of the regular files under dir.
func dirSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// BenchmarkResumeOneTurn10k (issue 18): robota -p --resume of a session of 10,000
// messages (small tool rounds, about 2.5 MB: it must fit the model's context window, or
// the turn would start with an auto-compaction), one turn with the script provider, as a
// whole process. It reports the median wall time, peak RSS and bytes written (rusage; and the
// growth of .robota/sessions and .robota/logs, the log being another part's), against a
// fresh one-turn run measured in the same iterations. Targets: ≤ 300 ms, ≤ 64 MiB,
// ≤ 1 MiB written. One unmeasured resume first gives the session its log, as a session
// robota wrote has.
func BenchmarkResumeOneTurn10k(b *testing.B) {
	root := b.TempDir()
	p := &project{Dir: filepath.Join(root, "proj"), Home: filepath.Join(root, "home"), Scripts: filepath.Join(root, "scripts")}
	for _, d := range []string{p.Dir, p.Home, p.Scripts} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	script := filepath.Join(p.Scripts, "one.yaml")
	if err := os.WriteFile(script, []byte("turns:\n  - text: \"One more answer.\"\n    repeat: true\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	const id = "bench-10k"
	dir := store.ProjectDir(p.Dir)
	// The session is written by a child process: a child's peak RSS (rusage) starts from
	// the peak of the process that started it, so this one must never hold the history.
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	gen := exec.Command(exe, "-test.run=^TestWriteBenchSession$", "-test.count=1")
	gen.Env = append(os.Environ(), benchSessionEnv+"="+p.Dir)
	if out, err := gen.CombinedOutput(); err != nil {
		b.Fatalf("write the session: %v\n%s", err, out)
	}
	// A model with a 1M-token window, so that the history is not compacted.
	base := []string{"--provider", "script", "--script", script, "--model", "claude-sonnet-4-6", "--output-format", "json"}
	measure(b, p, append([]string{"-p", "warm up"}, base...)...) // page cache, .robota layout
	// The fixture is written by the store alone, so the session has no log yet; a session
	// robota wrote has one. The first resume writes the history into the new log once
	// (about 2 MB here); it is a warm-up, and the measured turns continue that log.
	measure(b, p, append([]string{"-p", "warm up the log", "--resume", id}, base...)...)

	var resumed, fresh []procRun
	var sessionGrowth, logGrowth []int64
	for i := 0; i < b.N; i++ {
		sessions, logs := dirSize(dir), dirSize(filepath.Join(p.Dir, ".robota", "logs"))
		resumed = append(resumed, measure(b, p, append([]string{"-p", fmt.Sprintf("one more %d", i), "--resume", id}, base...)...))
		sessionGrowth = append(sessionGrowth, dirSize(dir)-sessions)
		logGrowth = append(logGrowth, dirSize(filepath.Join(p.Dir, ".robota", "logs"))-logs)
		fresh = append(fresh, measure(b, p, append([]string{"-p", "hello"}, base...)...))
	}
	r, f := medianRun(resumed), medianRun(fresh)
	b.ReportMetric(float64(r.wall.Milliseconds()), "resume-ms")
	b.ReportMetric(float64(r.cpu.Milliseconds()), "resume-cpu-ms")
	b.ReportMetric(float64(r.peakRSS)/(1<<20), "resume-peak-MiB")
	b.ReportMetric(float64(r.written)/(1<<10), "resume-written-KiB")
	b.ReportMetric(float64(medianInt(sessionGrowth))/(1<<10), "session-growth-KiB")
	b.ReportMetric(float64(medianInt(logGrowth))/(1<<10), "log-growth-KiB")
	b.ReportMetric(float64(r.wall)/float64(f.wall), "time-x-of-fresh")
	b.ReportMetric(float64(r.peakRSS)/float64(f.peakRSS), "rss-x-of-fresh")
	b.ReportMetric(float64(f.wall.Milliseconds()), "fresh-ms")
	b.ReportMetric(float64(f.peakRSS)/(1<<20), "fresh-peak-MiB")
	b.ReportMetric(float64(f.written)/(1<<10), "fresh-written-KiB")
	if entries, _ := os.ReadDir(dir); os.Getenv(benchLegacyEnv) == "" {
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".json") {
				b.Errorf("unexpected whole-record file %s", e.Name())
			}
		}
	}
}

// medianRun takes the median of each figure separately.
func medianRun(runs []procRun) procRun {
	var walls, cpus []time.Duration
	var rss, written []int64
	for _, r := range runs {
		walls = append(walls, r.wall)
		cpus = append(cpus, r.cpu)
		rss = append(rss, r.peakRSS)
		written = append(written, r.written)
	}
	slices.Sort(walls)
	slices.Sort(cpus)
	return procRun{wall: walls[len(walls)/2], cpu: cpus[len(cpus)/2], peakRSS: medianInt(rss), written: medianInt(written)}
}

func medianInt(v []int64) int64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// longRunRoundsEnv overrides the number of rounds of BenchmarkLongRun (default 2,000).
const longRunRoundsEnv = "ROBOTA_BENCH_ROUNDS"

// BenchmarkLongRun (issues 18, 29): one headless run of 2,000 small tool rounds (a Read of a
// one-line file each) with the script provider, then a resume of that session for one
// turn. It reports the bytes written over the run against the final conversation's size
// (the session journal; the log is another part's and reported apart), the time per round
// in the first and the last 200 rounds (from the journal's commit times), and the resumed
// turn's time (wall and CPU), peak RSS and bytes written, medians of five resumes.
func BenchmarkLongRun(b *testing.B) {
	rounds := 2000
	if v := os.Getenv(longRunRoundsEnv); v != "" {
		if _, err := fmt.Sscan(v, &rounds); err != nil || rounds < 400 {
			b.Fatalf("%s=%q: want a number ≥ 400", longRunRoundsEnv, v)
		}
	}
	for i := 0; i < b.N; i++ {
		root := b.TempDir()
		p := &project{Dir: filepath.Join(root, "proj"), Home: filepath.Join(root, "home"), Scripts: filepath.Join(root, "scripts")}
		for _, d := range []string{p.Dir, p.Home, p.Scripts} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(p.Dir, "one.txt"), []byte("hello\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		var script strings.Builder
		script.WriteString("turns:\n")
		for r := range rounds {
			fmt.Fprintf(&script, "  - toolCalls: [{id: c%d, name: Read, input: {file_path: %q}}]\n", r, filepath.Join(p.Dir, "one.txt"))
		}
		script.WriteString("  - text: \"Read them all.\"\n")
		scriptPath := filepath.Join(p.Scripts, "long.yaml")
		if err := os.WriteFile(scriptPath, []byte(script.String()), 0o644); err != nil {
			b.Fatal(err)
		}
		base := []string{"--provider", "script", "--script", scriptPath, "--model", "claude-sonnet-4-6",
			"--allowedTools", "Read", "--output-format", "json"}
		run := measureWithin(b, p, 20*time.Minute, append([]string{"-p", "read one.txt again and again"}, base...)...)
		sessions := store.ProjectDir(p.Dir)
		entries, err := os.ReadDir(sessions)
		if err != nil || len(entries) != 1 {
			b.Fatalf("sessions: %v, %v", entries, err)
		}
		id := strings.TrimSuffix(entries[0].Name(), ".jsonl")
		journal, err := os.ReadFile(filepath.Join(sessions, entries[0].Name()))
		if err != nil {
			b.Fatal(err)
		}
		var commits []time.Time
		var conversation int // bytes of the journal's message lines: the conversation as stored
		for _, line := range bytes.Split(journal, []byte{'\n'}) {
			if bytes.HasPrefix(line, []byte(`{"k":"m"`)) {
				conversation += len(line) + 1
			}
			var c struct {
				K string    `json:"k"`
				T time.Time `json:"t"`
			}
			if bytes.HasPrefix(line, []byte(`{"k":"c"`)) && json.Unmarshal(line, &c) == nil {
				commits = append(commits, c.T)
			}
		}
		if len(commits) < rounds {
			b.Fatalf("%d commits for %d rounds", len(commits), rounds)
		}
		perRound := func(from int) time.Duration { return commits[from+200].Sub(commits[from]) / 200 }
		logs := dirSize(filepath.Join(p.Dir, ".robota", "logs"))
		oneTurn := filepath.Join(p.Scripts, "one.yaml")
		if err := os.WriteFile(oneTurn, []byte("turns:\n  - text: \"One more answer.\"\n"), 0o644); err != nil {
			b.Fatal(err)
		}
		// The resume is measured five times (each adds one turn to the session, a small
		// part of it) and its medians reported: one run on a shared machine is noise.
		var resumes []procRun
		for range 5 {
			resumes = append(resumes, measure(b, p, "-p", "one more", "--resume", id, "--provider", "script", "--script", oneTurn,
				"--model", "claude-sonnet-4-6", "--output-format", "json"))
		}
		resumed := medianRun(resumes)

		disk := dirSize(p.Home) + dirSize(p.Dir)
		baseline, baselineWritten := rawAppendBaseline(b, journal, rounds)

		b.ReportMetric(run.wall.Seconds(), "run-s")
		b.ReportMetric(float64(run.written)/float64(rounds)/(1<<10), "written-KiB/round")
		b.ReportMetric(float64(disk)/(1<<20), "disk-MiB")
		// Issue 29's goal: bytes written ≤ 10× the conversation + 8 KiB a round (≤ 1 holds it).
		b.ReportMetric(float64(run.written)/float64(10*conversation+(8<<10)*rounds), "written-x-of-goal")
		b.ReportMetric(float64(conversation)/(1<<20), "conversation-MiB")
		b.ReportMetric(baseline.Seconds()*1000/float64(rounds), "baseline-append-fsync-ms/round")
		b.ReportMetric(float64(baselineWritten)/float64(rounds)/(1<<10), "baseline-written-KiB/round")
		b.ReportMetric(float64(perRound(1).Microseconds())/1000, "first200-ms/round")
		b.ReportMetric(float64(perRound(len(commits)-202).Microseconds())/1000, "last200-ms/round")
		b.ReportMetric(float64(len(journal))/(1<<20), "session-MiB")
		b.ReportMetric(float64(run.written)/(1<<20), "run-written-MiB")
		b.ReportMetric(float64(logs)/(1<<20), "log-MiB")
		b.ReportMetric(float64(run.written-logs)/float64(len(journal)), "non-log-written-x-of-session")
		b.ReportMetric(float64(resumed.wall.Milliseconds()), "resume-ms")
		b.ReportMetric(float64(resumed.cpu.Milliseconds()), "resume-cpu-ms")
		b.ReportMetric(float64(resumed.peakRSS)/(1<<20), "resume-peak-MiB")
		b.ReportMetric(float64(resumed.written)/(1<<10), "resume-written-KiB")
	}
}

// rawAppendBaseline appends the session journal's bytes to a fresh file in as many chunks as
// there were rounds, with an fsync after each, and returns the time taken and the bytes the
// storage was given (/proc/self/io write_bytes; an fsync writes whole pages, so this is more
// than len(journal)): the least a durable journal of the same conversation costs.
func rawAppendBaseline(b *testing.B, journal []byte, rounds int) (time.Duration, int64) {
	b.Helper()
	f, err := os.Create(filepath.Join(b.TempDir(), "baseline.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	chunk := len(journal)/rounds + 1
	before := selfWriteBytes()
	start := time.Now()
	for off := 0; off < len(journal); off += chunk {
		if _, err := f.Write(journal[off:min(off+chunk, len(journal))]); err != nil {
			b.Fatal(err)
		}
		if err := f.Sync(); err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(start), selfWriteBytes() - before
}

// selfWriteBytes is this process's write_bytes from /proc/self/io (0 where there is none).
func selfWriteBytes() int64 {
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "write_bytes: "); ok {
			var n int64
			if _, err := fmt.Sscan(v, &n); err == nil {
				return n
			}
		}
	}
	return 0
}

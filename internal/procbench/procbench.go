package procbench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"time"
)

// ErrNoRusage is returned when the platform gives no rusage for a child process.
var ErrNoRusage = errors.New("no rusage for the child process")

// BuildConfig is how a binary is built: the tags and CGO setting of the Makefile.
type BuildConfig struct {
	Tags string // -tags value; empty for none
	CGO  string // CGO_ENABLED value; empty inherits the environment
}

// Build builds the main package pkg (a path relative to moduleDir) into out.
func Build(ctx context.Context, moduleDir, pkg, out string, cfg BuildConfig) error {
	args := []string{"build", "-o", out}
	if cfg.Tags != "" {
		args = append(args, "-tags", cfg.Tags)
	}
	cmd := exec.CommandContext(ctx, "go", append(args, pkg)...)
	cmd.Dir = moduleDir
	cmd.Env = os.Environ()
	if cfg.CGO != "" {
		cmd.Env = append(cmd.Env, "CGO_ENABLED="+cfg.CGO)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %w\n%s", pkg, err, out)
	}
	return nil
}

// Sample is one run of a process.
type Sample struct {
	Wall      time.Duration
	MaxRSSKiB int64
}

// Run runs cmd to completion and returns its wall time and peak RSS.
func Run(cmd *exec.Cmd) (Sample, error) {
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return Sample{}, fmt.Errorf("%s: %w", cmd, err)
	}
	wall := time.Since(start)
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return Sample{}, fmt.Errorf("%s: %w", cmd, ErrNoRusage)
	}
	return Sample{Wall: wall, MaxRSSKiB: maxRSSKiB(ru)}, nil
}

// Median is the median of each field over samples, taken separately.
func Median(samples []Sample) Sample {
	if len(samples) == 0 {
		return Sample{}
	}
	walls := make([]time.Duration, len(samples))
	rss := make([]int64, len(samples))
	for i, s := range samples {
		walls[i], rss[i] = s.Wall, s.MaxRSSKiB
	}
	slices.Sort(walls)
	slices.Sort(rss)
	return Sample{Wall: walls[len(walls)/2], MaxRSSKiB: rss[len(rss)/2]}
}

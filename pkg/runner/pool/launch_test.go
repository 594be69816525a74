package pool_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/robota-sdk/robota-go/pkg/runner/pool"
	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
	"github.com/robota-sdk/robota-go/pkg/runner/workerproc"
)

// A missing robota-worker fails each job with what is missing and how to install it; the
// next job looks again.
func TestMissingWorkerSaysHowToInstallIt(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	p := pool.New(pool.Launcher(func() (string, error) { return workerproc.Find(filepath.Join(t.TempDir(), "robota")) }, nil))
	defer p.Close()
	for _, job := range []runnerapi.Job{processJob("b1"), agentJob("a1")} {
		err := p.Start(context.Background(), job, func(runnerapi.Event) error { return nil })
		if !errors.Is(err, workerproc.ErrNotFound) || !strings.Contains(err.Error(), "robota-worker") || !strings.Contains(err.Error(), "make build") {
			t.Fatalf("%s: Start = %v, want ErrNotFound naming robota-worker and how to install it", job.ID, err)
		}
	}
}

// A binary that does not complete go-plugin's handshake fails the job with its path.
func TestLaunchFailureNamesTheBinary(t *testing.T) {
	path := filepath.Join(t.TempDir(), "robota-worker")
	if err := os.WriteFile(path, []byte("#!/bin/sh\necho not a plugin >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := pool.New(pool.Launcher(func() (string, error) { return path, nil }, nil))
	defer p.Close()
	err := p.Start(context.Background(), processJob("b1"), func(runnerapi.Event) error { return nil })
	if err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("Start = %v, want a launch error naming %s", err, path)
	}
}

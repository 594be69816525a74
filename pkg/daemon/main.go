package daemon

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"go.uber.org/zap"

	"github.com/robota-sdk/robota-go/pkg/version"
)

// Main is robota-engine's main: it returns the process exit status.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	opts, err := ParseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "robota-engine: %v\n", err)
		return 2
	}
	if opts.ShowVersion {
		fmt.Fprintf(stdout, "robota-engine %s\n", version.String())
		return 0
	}
	log, err := NewLogger(opts.Dev)
	if err != nil {
		fmt.Fprintf(stderr, "robota-engine: logger: %v\n", err)
		return 1
	}
	defer func() { _ = log.Sync() }()
	if opts.Worker.Path == "" && opts.Workers > 0 {
		path, err := FindWorker()
		if err != nil {
			log.Warn("no robota-worker binary found beside robota-engine or on PATH; running without workers (subagents and background processes unavailable)", zap.Error(err))
		}
		opts.Worker.Path = path
	}
	opts.Log = log
	if err := Run(ctx, opts.Config); err != nil {
		if errors.Is(err, ErrNATS) {
			fmt.Fprintf(stderr, "robota-engine: %v\n", err)
			return 1
		}
		log.Error("engine failed", zap.Error(err))
		return 1
	}
	return 0
}

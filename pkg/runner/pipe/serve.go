package pipe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/robota-sdk/robota-go/pkg/runner/runnerapi"
)

// Serve answers requests read from in with r, writing to out, until in ends (the client
// went away) or ctx ends; then it ends every start request in flight, waits for them and
// returns nil. A malformed request ends the session with an error.
func Serve(ctx context.Context, in io.Reader, out io.Writer, r runnerapi.Runner) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &server{enc: json.NewEncoder(out), runner: r, starts: map[uint64]context.CancelFunc{}}
	if err := s.write(hello{Hello: Protocol}); err != nil {
		return fmt.Errorf("worker pipe: write hello: %w", err)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	dec := json.NewDecoder(in)
	for {
		var req request
		if err := dec.Decode(&req); err != nil {
			if errors.Is(err, io.EOF) || ctx.Err() != nil {
				return nil
			}
			return protocolError("read request: %v", err)
		}
		if req.Op == "stop" {
			s.stop(req.Ref)
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.handle(ctx, req)
		}()
	}
}

type server struct {
	runner runnerapi.Runner

	writeMu sync.Mutex
	enc     *json.Encoder

	mu     sync.Mutex
	starts map[uint64]context.CancelFunc
}

func (s *server) write(v any) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	return s.enc.Encode(v)
}

func (s *server) stop(ref uint64) {
	s.mu.Lock()
	cancel := s.starts[ref]
	s.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

func (s *server) handle(ctx context.Context, req request) {
	done := response{ID: req.ID, Done: true}
	var err error
	switch req.Op {
	case "start":
		if req.Job == nil {
			err = errors.New("start without a job")
			break
		}
		jctx, cancel := context.WithCancel(ctx)
		s.mu.Lock()
		s.starts[req.ID] = cancel
		s.mu.Unlock()
		err = s.runner.Start(jctx, *req.Job, func(ev runnerapi.Event) error {
			return s.write(response{ID: req.ID, Event: &ev})
		})
		s.mu.Lock()
		delete(s.starts, req.ID)
		s.mu.Unlock()
		cancel()
	case "cancel":
		done.Running, err = s.runner.Cancel(ctx, req.JobID, req.Reason)
	case "send":
		err = s.runner.Send(ctx, req.JobID, req.Input)
	case "read_log":
		var page runnerapi.LogPage
		page, err = s.runner.ReadLog(ctx, req.JobID, req.Offset, req.Limit)
		done.Page = &page
	default:
		err = fmt.Errorf("unknown op %q", req.Op)
	}
	if err != nil {
		done.Error, done.Code, done.Page = err.Error(), errorCode(err), nil
	}
	// A write error means the client is gone; Serve's read loop sees it too.
	_ = s.write(done)
}

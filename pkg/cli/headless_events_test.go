package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/assemble"

	"github.com/robota-sdk/robota-go/pkg/cli/output"
	"github.com/robota-sdk/robota-go/pkg/engine/interactive"
	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/providers/script"
)

// A stop signal, or the end of the run's context, aborts the running prompt through
// InteractiveSession.Abort: the prompt ends interrupted with the run's abort error, the
// partial answer is printed (stream-json) and kept, and runPrompt names the signal, from
// which the exit status is 128+signal.
func TestRunPromptAbortsOnSignalOrCancel(t *testing.T) {
	for _, tc := range []struct {
		name     string
		sig      os.Signal // nil: the context is cancelled instead
		wantExit int
	}{
		{"SIGINT", os.Interrupt, 130},
		{"SIGTERM", syscall.SIGTERM, 143},
		{"SIGHUP", syscall.SIGHUP, 129},
		{"context cancelled", nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := script.New([]byte("turns:\n  - text: \"partial answer\"\n    hang: true\n"), "hang.yaml")
			if err != nil {
				t.Fatal(err)
			}
			s, err := assemble.New(context.Background(), assemble.Options{Cwd: t.TempDir(), Home: t.TempDir(), LLM: p,
				Interactive: interactive.InteractiveOptions{NoPrompt: true, Delivery: headlessDelivery}})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close(context.Background(), "other")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			// Stop the run once the answer has started streaming (seen by a second subscriber).
			watch := s.Subscribe()
			sigs := make(chan os.Signal, 1)
			go func() {
				for {
					ev, err := watch.Next(context.Background())
					if err != nil {
						return
					}
					if ev.Type == interactive.EventTextDelta {
						if tc.sig != nil {
							sigs <- tc.sig
						} else {
							cancel()
						}
						return
					}
				}
			}()
			var stdout, stderr bytes.Buffer
			type ran struct {
				end *interactive.Result
				sig os.Signal
				err error
			}
			done := make(chan ran, 1)
			go func() {
				end, sig, err := runPrompt(ctx, s, "tell me", sigs,
					eventPrinter{out: output.New(&stdout, output.FormatStreamJSON, llm.NewID), stderr: &stderr})
				done <- ran{end, sig, err}
			}()
			var r ran
			select {
			case r = <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("the prompt was not aborted")
			}
			if r.err != nil || r.sig != tc.sig || !errors.Is(r.end.Err, interactive.ErrAborted) {
				t.Fatalf("ended with %+v, signal %v, %v; want interrupted by %v", r.end, r.sig, r.err, tc.sig)
			}
			if tc.sig != nil && signalExit(r.sig) != tc.wantExit {
				t.Fatalf("exit status %d, want %d", signalExit(r.sig), tc.wantExit)
			}
			res := resultOf(s.Session(), r.end.Response, r.end.Err, 0)
			if !res.IsError || res.Subtype != output.SubtypeErrorDuringExecution || len(res.Errors) != 1 {
				t.Fatalf("result %+v", res)
			}
			// The abort comes at the first delta, so how much of "partial answer" streamed
			// before it varies; what streamed is printed.
			if !strings.Contains(stdout.String(), `"type":"assistant"`) || !strings.Contains(stdout.String(), `"text":"partial`) {
				t.Fatalf("the partial answer was not printed:\n%s", stdout.String())
			}
		})
	}
}

// robota -p's runner is an interactive.Transport: attached to the session, Start runs
// its prompt and prints the session's events until it ends; it refuses to start with no
// session attached.
func TestHeadlessTransport(t *testing.T) {
	var out bytes.Buffer
	ht := &headlessTransport{prompt: "say hi", printer: eventPrinter{out: output.New(&out, output.FormatStreamJSON, llm.NewID), stderr: &bytes.Buffer{}}}
	var tr interactive.Transport = ht
	if tr.Name() != "headless" {
		t.Fatalf("name %q", tr.Name())
	}
	if err := tr.Start(context.Background()); !errors.Is(err, errNotAttached) {
		t.Fatalf("Start before Attach: %v", err)
	}
	p, err := script.New([]byte("turns:\n  - text: \"hi from the transport\"\n"), "hi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := assemble.New(context.Background(), assemble.Options{Cwd: t.TempDir(), Home: t.TempDir(), LLM: p,
		Interactive: interactive.InteractiveOptions{NoPrompt: true, Delivery: headlessDelivery}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(context.Background(), "other")
	s.AttachTransport(tr)
	if err := tr.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := tr.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if ht.end == nil || ht.end.Response != "hi from the transport" || !strings.Contains(out.String(), `"text":"hi from the transport"`) {
		t.Fatalf("result %+v, output:\n%s", ht.end, out.String())
	}
}

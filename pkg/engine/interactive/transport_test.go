package interactive_test

import (
	"context"
	"slices"
	"testing"

	. "github.com/robota-sdk/robota-go/pkg/engine/interactive"
)

// fakeTransport records what the session and its consumer do to it, and serves one
// prompt on Start as a headless transport does.
type fakeTransport struct {
	calls    []string
	attached *InteractiveSession
	answer   string
}

func (f *fakeTransport) Name() string { return "fake" }

func (f *fakeTransport) Attach(s *InteractiveSession) {
	f.calls = append(f.calls, "attach")
	f.attached = s
}

func (f *fakeTransport) Start(ctx context.Context) error {
	f.calls = append(f.calls, "start")
	sub := f.attached.Subscribe()
	defer sub.Close()
	sent, err := f.attached.Submit("hello")
	if err != nil {
		return err
	}
	for {
		ev, err := sub.Next(ctx)
		if err != nil {
			return err
		}
		if ev.PromptID == sent.PromptID && ev.Type == EventComplete {
			f.answer = ev.Result.Response
			return nil
		}
	}
}

func (f *fakeTransport) Stop(context.Context) error {
	f.calls = append(f.calls, "stop")
	return nil
}

// AttachTransport hands the session to the transport (the spec's attachTransport calls
// attach); the transport then serves it between Start and Stop.
func TestAttachTransport(t *testing.T) {
	s := newTestSession(t, scriptProvider(t, "turns:\n  - text: served\n"), Options{})
	f := &fakeTransport{}
	var tr Transport = f
	s.AttachTransport(tr)
	if f.attached != s || !slices.Equal(f.calls, []string{"attach"}) {
		t.Fatalf("after AttachTransport: attached %p (session %p), calls %v", f.attached, s, f.calls)
	}
	ctx := context.Background()
	if err := tr.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := tr.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if f.answer != "served" || !slices.Equal(f.calls, []string{"attach", "start", "stop"}) {
		t.Fatalf("answer %q, calls %v", f.answer, f.calls)
	}
}

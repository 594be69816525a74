package assemble

import (
	"context"
	"errors"
	"reflect"
	"testing"

	. "github.com/robota-sdk/robota-go/pkg/engine/interactive"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
)

// modelsProvider answers only the models in ok; it records the model of every call and
// streams text before failing when streamFirst is set.
type modelsProvider struct {
	ok          map[string]bool
	fail        error
	streamFirst bool
	calls       []string
}

func (p *modelsProvider) Name() string { return "anthropic" }

func (p *modelsProvider) Chat(_ context.Context, req llm.ChatRequest, cb llm.Callbacks) (llm.ChatResponse, error) {
	p.calls = append(p.calls, req.Model)
	if !p.ok[req.Model] {
		if p.streamFirst {
			cb.TextDelta("partial")
		}
		return llm.ChatResponse{}, p.fail
	}
	return llm.ChatResponse{Message: llm.Message{Role: llm.RoleAssistant}, StopReason: llm.StopReasonEndTurn}, nil
}

func TestFallbackModel(t *testing.T) {
	notAvailable := llm.NewError(llm.CodeModelNotAvailable, "HTTP 404: model", nil)
	overloaded := llm.NewError(llm.CodeProvider, "HTTP 529: Overloaded (overloaded_error)", nil)
	overloaded.StatusCode = 529
	badRequest := llm.NewError(llm.CodeValidation, "HTTP 400: bad", nil)
	choice := ProviderChoice{}
	choice.Type, choice.Model = "anthropic", "claude-opus-4-6"
	tests := []struct {
		name        string
		fallback    string
		fail        error
		streamFirst bool
		wantCalls   []string
		wantErr     bool
	}{
		{"not available", "haiku", notAvailable, false, []string{"claude-opus-4-6", "claude-haiku-4-5"}, false},
		{"overloaded, list in order", "claude-x,sonnet", overloaded, false, []string{"claude-opus-4-6", "claude-x", "claude-sonnet-4-6"}, false},
		{"other errors are not retried", "haiku", badRequest, false, []string{"claude-opus-4-6"}, true},
		{"a streamed answer is not repeated", "haiku", notAvailable, true, []string{"claude-opus-4-6"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inner := &modelsProvider{ok: map[string]bool{"claude-haiku-4-5": true, "claude-sonnet-4-6": true}, fail: tt.fail, streamFirst: tt.streamFirst}
			p, err := withFallback(inner, choice, tt.fallback)
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Chat(context.Background(), llm.ChatRequest{Model: choice.Model}, llm.Callbacks{})
			if (err != nil) != tt.wantErr || !reflect.DeepEqual(inner.calls, tt.wantCalls) {
				t.Fatalf("calls %q err %v; want %q (error %v)", inner.calls, err, tt.wantCalls, tt.wantErr)
			}
		})
	}
	if _, err := withFallback(&modelsProvider{}, choice, "opus"); !errors.Is(err, ErrInvalidConfiguration) {
		t.Fatalf("fallback resolving to the session's model: %v, want ErrInvalidConfiguration", err)
	}
}

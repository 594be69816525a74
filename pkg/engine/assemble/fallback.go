package assemble

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/providers/registry"
)

// fallbackProvider is --fallback-model: a call the model cannot serve (overloaded, or the
// model is not available) is made again with the fallback models, in order. Every call
// tries the session's model first, so the fallback lasts only while the model fails. A
// call that already streamed text is never repeated: the user has seen part of an answer.
type fallbackProvider struct {
	llm.Provider
	models []string
}

// withFallback wraps p with the fallback models of --fallback-model (comma separated),
// each resolved like --model. A fallback equal to the session's model is an
// ErrInvalidConfiguration, as in Claude Code.
func withFallback(p llm.Provider, c ProviderChoice, fallback string) (llm.Provider, error) {
	def, lookupErr := registry.Default().Lookup(c.Type)
	var models []string
	for _, m := range strings.Split(fallback, ",") {
		if m = strings.TrimSpace(m); m == "" {
			continue
		}
		if lookupErr == nil { // an injected provider's models are taken as given
			id, err := resolveModel(def, m)
			if err != nil {
				return nil, invalid("--fallback-model: %w", err)
			}
			m = id
		}
		if m == c.Model {
			return nil, invalid("--fallback-model %s is the session's model; name another one", m)
		}
		models = append(models, m)
	}
	if len(models) == 0 {
		return p, nil
	}
	return fallbackProvider{Provider: p, models: models}, nil
}

func (f fallbackProvider) Chat(ctx context.Context, req llm.ChatRequest, cb llm.Callbacks) (llm.ChatResponse, error) {
	var streamed atomic.Bool // callbacks may run on the provider's goroutine
	seen := cb
	seen.OnTextDelta = func(d string) { streamed.Store(true); cb.TextDelta(d) }
	seen.OnThinkingDelta = func(d string) { streamed.Store(true); cb.ThinkingDelta(d) }
	resp, err := f.Provider.Chat(ctx, req, seen)
	for _, m := range f.models {
		if err == nil || streamed.Load() || ctx.Err() != nil || !unservable(err) {
			break
		}
		req.Model = m
		resp, err = f.Provider.Chat(ctx, req, seen)
	}
	return resp, err
}

// unservable is a failure another model may not have: the model is overloaded (HTTP 529,
// an overloaded_error event) or not available.
func unservable(err error) bool {
	var e *llm.Error
	if !errors.As(err, &e) {
		return false
	}
	return e.Code == llm.CodeModelNotAvailable || e.StatusCode == 529 || strings.Contains(e.Message, "overloaded_error")
}

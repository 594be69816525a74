package llm

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

func TestErrorTaxonomy(t *testing.T) {
	tests := []struct {
		code        ErrorCode
		sentinel    error
		category    ErrorCategory
		recoverable bool
	}{
		{CodeConfiguration, ErrConfiguration, CategoryUser, false},
		{CodeValidation, ErrValidation, CategoryUser, false},
		{CodeProvider, ErrProvider, CategoryProvider, true},
		{CodeAuthentication, ErrAuthentication, CategoryUser, false},
		{CodeRateLimit, ErrRateLimit, CategoryProvider, true},
		{CodeNetwork, ErrNetwork, CategorySystem, true},
		{CodeToolExecution, ErrToolExecution, CategorySystem, false},
		{CodeModelNotAvailable, ErrModelNotAvailable, CategoryUser, false},
		{CodeCircuitBreakerOpen, ErrCircuitBreakerOpen, CategorySystem, true},
		{CodePlugin, ErrPlugin, CategorySystem, false},
		{CodeStorage, ErrStorage, CategorySystem, true},
	}
	for _, tc := range tests {
		t.Run(string(tc.code), func(t *testing.T) {
			err := fmt.Errorf("context: %w", NewError(tc.code, "boom", nil))
			if !errors.Is(err, tc.sentinel) {
				t.Fatalf("errors.Is(%v, sentinel) = false", err)
			}
			var e *Error
			if !errors.As(err, &e) || e.Category != tc.category || e.Recoverable != tc.recoverable {
				t.Fatalf("classification = %+v", e)
			}
			if IsRecoverable(err) != tc.recoverable || CodeOf(err) != tc.code {
				t.Fatalf("IsRecoverable/CodeOf = %v/%v", IsRecoverable(err), CodeOf(err))
			}
		})
	}
	if errors.Is(NewError(CodeRateLimit, "x", nil), ErrProvider) {
		t.Fatal("rate limit error matched the provider sentinel")
	}
}

func TestWrapProviderError(t *testing.T) {
	cause := errors.New("connection reset")
	err := WrapProviderError("anthropic", cause)
	if !errors.Is(err, ErrProvider) || !errors.Is(err, cause) || !IsRecoverable(err) {
		t.Fatalf("wrapped = %v", err)
	}
	rl := WrapProviderError("openai", NewError(CodeRateLimit, "slow down", nil))
	if CodeOf(rl) != CodeRateLimit || rl.Error() != "openai: slow down" {
		t.Fatalf("rate limit wrapped = %q code %s", rl, CodeOf(rl))
	}
	if FromUnknown(context.DeadlineExceeded).Code != CodeNetwork {
		t.Fatal("deadline not classified as network")
	}
}

func TestCheckNativeWebTools(t *testing.T) {
	var caps Capabilities
	caps.NativeWebTools.WebSearch = NativeToolSupport{Supported: true, Enabled: false}
	if err := CheckNativeWebTools("p", caps, &NativeWebToolRequest{WebSearch: true}); !errors.Is(err, ErrConfiguration) {
		t.Fatalf("disabled search: %v", err)
	}
	if err := CheckNativeWebTools("p", caps, &NativeWebToolRequest{WebFetch: true}); !errors.Is(err, ErrConfiguration) {
		t.Fatalf("unsupported fetch: %v", err)
	}
	caps.NativeWebTools.WebSearch.Enabled = true
	if err := CheckNativeWebTools("p", caps, &NativeWebToolRequest{WebSearch: true}); err != nil {
		t.Fatal(err)
	}
	if err := CheckNativeWebTools("p", caps, nil); err != nil {
		t.Fatal(err)
	}
}

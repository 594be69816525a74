package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/providers/retry"
)

var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func TestClassify(t *testing.T) {
	tests := []struct {
		name        string
		in          APIError
		code        llm.ErrorCode
		recoverable bool
		after       time.Duration // 0 = no hint expected
	}{
		{"401", APIError{Status: 401}, llm.CodeAuthentication, false, 0},
		{"403", APIError{Status: 403}, llm.CodeAuthentication, false, 0},
		{"429 with retry-after", APIError{Status: 429, Header: http.Header{"Retry-After": {"12"}}}, llm.CodeRateLimit, true, 12 * time.Second},
		{"429 insufficient quota", APIError{Status: 429, Code: "insufficient_quota", Header: http.Header{"Retry-After": {"1"}}}, llm.CodeRateLimit, false, 0},
		{"400", APIError{Status: 400, Type: "invalid_request_error"}, llm.CodeValidation, false, 0},
		{"404 model", APIError{Status: 404, Code: "model_not_found"}, llm.CodeModelNotAvailable, false, 0},
		{"408", APIError{Status: 408}, llm.CodeProvider, true, 0},
		{"500", APIError{Status: 500}, llm.CodeProvider, true, 0},
		{"503 with retry-after-ms", APIError{Status: 503, Header: http.Header{"Retry-After-Ms": {"250"}}}, llm.CodeProvider, true, 250 * time.Millisecond},
		{"529 overloaded", APIError{Status: 529, Type: "overloaded_error"}, llm.CodeProvider, true, 0},
		{"stream overloaded", APIError{Type: "overloaded_error"}, llm.CodeProvider, true, 0},
		{"stream rate limit", APIError{Type: "rate_limit_error"}, llm.CodeRateLimit, true, 0},
		{"stream invalid request", APIError{Type: "invalid_request_error"}, llm.CodeValidation, false, 0},
		{"stream unknown", APIError{Message: "boom"}, llm.CodeProvider, true, 0},
		{"billing", APIError{Status: 400, Type: "billing_error"}, llm.CodeConfiguration, false, 0},
		{"401 typed invalid request", APIError{Status: 401, Type: "invalid_request_error", Code: "invalid_api_key"}, llm.CodeAuthentication, false, 0},
		{"429 typed tokens", APIError{Status: 429, Type: "tokens", Code: "rate_limit_exceeded"}, llm.CodeRateLimit, true, 0},
		{"413", APIError{Status: 413, Type: "request_too_large"}, llm.CodeValidation, false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Classify("p", tc.in, now)
			if err.Code != tc.code || err.Recoverable != tc.recoverable || err.Provider != "p" || err.StatusCode != tc.in.Status {
				t.Fatalf("got %+v", err)
			}
			d, ok := retry.After(err)
			if ok != (tc.after > 0) || d != tc.after {
				t.Fatalf("retry hint %v %v, want %v", d, ok, tc.after)
			}
		})
	}
}

func TestRetryAfterDate(t *testing.T) {
	h := http.Header{"Retry-After": {now.Add(30 * time.Second).Format(http.TimeFormat)}}
	if d, ok := RetryAfter(h, now); !ok || d != 30*time.Second {
		t.Fatalf("date retry-after = %v %v", d, ok)
	}
	if _, ok := RetryAfter(http.Header{"Retry-After": {"soon"}}, now); ok {
		t.Fatal("garbage retry-after accepted")
	}
}

func TestIsNetwork(t *testing.T) {
	for _, err := range []error{io.ErrUnexpectedEOF, syscall.ECONNRESET, fmt.Errorf("read: %w", syscall.ECONNREFUSED),
		&net.OpError{Op: "dial", Err: errors.New("refused")}, ErrStreamIdle} {
		if !IsNetwork(err) {
			t.Errorf("%v not classified as network", err)
		}
	}
	if IsNetwork(errors.New("json: bad")) || IsNetwork(nil) {
		t.Error("non-network error classified as network")
	}
}

func TestWatchdog(t *testing.T) {
	ctx, w := WithWatchdog(context.Background(), 20*time.Millisecond)
	defer w.Stop()
	<-ctx.Done()
	if !Idle(ctx) || context.Cause(ctx) != ErrStreamIdle {
		t.Fatalf("cause %v", context.Cause(ctx))
	}
	ctx, w = WithWatchdog(context.Background(), time.Hour)
	w.Touch()
	w.Stop()
	if Idle(ctx) {
		t.Fatal("stopped watchdog reported idle")
	}
	parent, cancel := context.WithCancel(context.Background())
	ctx, w = WithWatchdog(parent, 0)
	defer w.Stop()
	cancel()
	<-ctx.Done()
	if Idle(ctx) {
		t.Fatal("parent cancel reported as idle")
	}
}

func TestToolInput(t *testing.T) {
	for in, want := range map[string]string{
		"":                 `{}`,
		"  ":               `{}`,
		`{"a":1}`:          `{"a":1}`,
		` {"a":1} `:        `{"a":1}`,
		`{"file_path": "x`: `"{\"file_path\": \"x"`,
	} {
		if got := string(ToolInput(in)); got != want {
			t.Errorf("ToolInput(%q) = %s, want %s", in, got, want)
		}
	}
}

package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/providers/retry"
)

// ErrStreamIdle is the cause of a stream cancelled by its Watchdog.
var ErrStreamIdle = errors.New("stream idle timeout")

// ErrTruncated reports a stream that ended before the provider's end-of-message marker.
var ErrTruncated = errors.New("stream ended before the response was complete")

// APIError is what a provider knows about a failed call.
type APIError struct {
	Status  int         // HTTP status; 0 when the failure arrived inside a 200 stream
	Header  http.Header // response headers, for Retry-After
	Type    string      // provider error type, e.g. "overloaded_error", "rate_limit_error"
	Code    string      // provider error code, e.g. "insufficient_quota", "model_not_found"
	Message string
	Cause   error
}

// Classify maps a failed API call of provider onto the taxonomy.
func Classify(provider string, e APIError, now time.Time) *llm.Error {
	code, recoverable := classifyCode(e)
	msg := e.Message
	if msg == "" {
		msg = strings.TrimSpace(http.StatusText(e.Status))
	}
	if e.Status != 0 {
		msg = fmt.Sprintf("HTTP %d: %s", e.Status, msg)
	}
	if e.Type != "" {
		msg += " (" + e.Type + ")"
	}
	cause := e.Cause
	if d, ok := RetryAfter(e.Header, now); ok && recoverable {
		cause = retry.WithAfter(cause, d)
	}
	le := llm.NewError(code, msg, cause)
	le.Provider, le.StatusCode = provider, e.Status
	le.Recoverable = recoverable
	return le
}

func classifyCode(e APIError) (llm.ErrorCode, bool) {
	switch e.Code {
	case "insufficient_quota":
		// A 429 that waiting will not fix: the account has no credit.
		return llm.CodeRateLimit, false
	case "invalid_api_key":
		return llm.CodeAuthentication, false
	case "model_not_found":
		return llm.CodeModelNotAvailable, false
	}
	switch s := e.Status; {
	case s == 0:
		return classifyType(e.Type)
	case s == http.StatusUnauthorized || s == http.StatusForbidden:
		return llm.CodeAuthentication, false
	case s == http.StatusTooManyRequests:
		return llm.CodeRateLimit, true
	case s == http.StatusNotFound:
		return llm.CodeModelNotAvailable, false
	case s == http.StatusRequestTimeout || s == http.StatusConflict || s >= 500:
		return llm.CodeProvider, true
	case e.Type == "billing_error" || s == http.StatusPaymentRequired:
		return llm.CodeConfiguration, false
	case s >= 400:
		return llm.CodeValidation, false
	}
	return llm.CodeProvider, true
}

// classifyType maps the error type of an error that arrived inside a 200 stream.
func classifyType(t string) (llm.ErrorCode, bool) {
	switch t {
	case "authentication_error", "permission_error":
		return llm.CodeAuthentication, false
	case "rate_limit_error":
		return llm.CodeRateLimit, true
	case "invalid_request_error", "request_too_large":
		return llm.CodeValidation, false
	case "not_found_error":
		return llm.CodeModelNotAvailable, false
	case "billing_error":
		return llm.CodeConfiguration, false
	}
	// overloaded_error, api_error, server_error, timeout_error, or nothing recognisable:
	// the server failed mid-way.
	return llm.CodeProvider, true
}

// RetryAfter reads retry-after-ms, then Retry-After (seconds or an HTTP date).
func RetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if h == nil {
		return 0, false
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second)), true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(at.Sub(now), 0), true
	}
	return 0, false
}

// Network classifies a transport failure (no HTTP response, or a broken stream) as a
// recoverable network error.
func Network(provider, what string, cause error) *llm.Error {
	le := llm.NewError(llm.CodeNetwork, what, cause)
	le.Provider = provider
	return le
}

// IsNetwork reports whether err is a connection-level failure rather than an API answer.
func IsNetwork(err error) bool {
	if err == nil {
		return false
	}
	var ne net.Error
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF),
		errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.EPIPE), errors.Is(err, ErrStreamIdle),
		errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne):
		return true
	}
	var oe *net.OpError
	return errors.As(err, &oe)
}

// Unclassified maps a failure that carries no HTTP status: a network error is
// recoverable; anything else (a malformed event, an unparseable error event)
// means the server broke the stream.
func Unclassified(provider string, err error) error {
	if IsNetwork(err) {
		return Network(provider, "connection failed", err)
	}
	le := llm.NewError(llm.CodeProvider, "stream failed", err)
	le.Provider = provider
	return le
}

package llm

import (
	"context"
	"errors"
	"fmt"
)

// ErrorCode names a failure class of the spec's error taxonomy.
type ErrorCode string

const (
	CodeConfiguration      ErrorCode = "CONFIGURATION_ERROR"
	CodeValidation         ErrorCode = "VALIDATION_ERROR"
	CodeProvider           ErrorCode = "PROVIDER_ERROR"
	CodeAuthentication     ErrorCode = "AUTHENTICATION_ERROR"
	CodeRateLimit          ErrorCode = "RATE_LIMIT_ERROR"
	CodeNetwork            ErrorCode = "NETWORK_ERROR"
	CodeToolExecution      ErrorCode = "TOOL_EXECUTION_ERROR"
	CodeModelNotAvailable  ErrorCode = "MODEL_NOT_AVAILABLE"
	CodeCircuitBreakerOpen ErrorCode = "CIRCUIT_BREAKER_OPEN"
	CodePlugin             ErrorCode = "PLUGIN_ERROR"
	CodeStorage            ErrorCode = "STORAGE_ERROR"
)

// ErrorCategory says whose fault a failure is.
type ErrorCategory string

const (
	CategoryUser     ErrorCategory = "user"
	CategoryProvider ErrorCategory = "provider"
	CategorySystem   ErrorCategory = "system"
)

type classification struct {
	category    ErrorCategory
	recoverable bool
}

// taxonomy classifies the known codes; ok is false for any other. A switch, not a map:
// it needs no package init (issue 29).
func taxonomy(code ErrorCode) (c classification, ok bool) {
	switch code {
	case CodeConfiguration, CodeValidation, CodeAuthentication, CodeModelNotAvailable:
		return classification{CategoryUser, false}, true
	case CodeProvider, CodeRateLimit:
		return classification{CategoryProvider, true}, true
	case CodeNetwork, CodeCircuitBreakerOpen, CodeStorage:
		return classification{CategorySystem, true}, true
	case CodeToolExecution, CodePlugin:
		return classification{CategorySystem, false}, true
	}
	return classification{}, false
}

// Error is the engine's classified error. errors.Is(err, ErrRateLimit) matches any *Error
// with the same Code, so callers test classes with the sentinels below.
type Error struct {
	Code        ErrorCode     `json:"code"`
	Category    ErrorCategory `json:"category"`
	Recoverable bool          `json:"recoverable"`
	Message     string        `json:"message"`
	Provider    string        `json:"provider,omitempty"`
	StatusCode  int           `json:"statusCode,omitempty"` // transport status when known (e.g. HTTP 429)
	Err         error         `json:"-"`
}

// NewError classifies code per the taxonomy and wraps cause (which may be nil).
func NewError(code ErrorCode, message string, cause error) *Error {
	c, ok := taxonomy(code)
	if !ok {
		c = classification{CategorySystem, false}
	}
	return &Error{Code: code, Category: c.category, Recoverable: c.recoverable, Message: message, Err: cause}
}

func (e *Error) Error() string {
	msg := e.Message
	if msg == "" && e.Err == nil {
		msg = string(e.Code)
	}
	if e.Provider != "" {
		msg = e.Provider + ": " + msg
	}
	if e.Err != nil && e.Message == "" {
		msg += e.Err.Error()
	} else if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// Is makes sentinels match by code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && t.Message == "" && t.Err == nil
}

// Sentinels for errors.Is; do not wrap or mutate them.
var (
	ErrConfiguration      = &Error{Code: CodeConfiguration}
	ErrValidation         = &Error{Code: CodeValidation}
	ErrProvider           = &Error{Code: CodeProvider}
	ErrAuthentication     = &Error{Code: CodeAuthentication}
	ErrRateLimit          = &Error{Code: CodeRateLimit}
	ErrNetwork            = &Error{Code: CodeNetwork}
	ErrToolExecution      = &Error{Code: CodeToolExecution}
	ErrModelNotAvailable  = &Error{Code: CodeModelNotAvailable}
	ErrCircuitBreakerOpen = &Error{Code: CodeCircuitBreakerOpen}
	ErrPlugin             = &Error{Code: CodePlugin}
	ErrStorage            = &Error{Code: CodeStorage}
)

// IsRecoverable reports whether err (or an *Error it wraps) may succeed on retry.
func IsRecoverable(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Recoverable
}

// CodeOf returns the code of the *Error in err's chain, or "" when there is none.
func CodeOf(err error) ErrorCode {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// FromUnknown returns the *Error in err's chain, or wraps err as a system error
// (network error for deadline expiries).
func FromUnknown(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return NewError(CodeNetwork, "", err)
	}
	return NewError(CodeToolExecution, "", err)
}

// WrapProviderError classifies a transport failure of provider: an existing *Error keeps
// its code; anything else becomes a recoverable PROVIDER_ERROR.
func WrapProviderError(provider string, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		if e.Provider == "" {
			cp := *e
			cp.Provider = provider
			return &cp
		}
		return e
	}
	pe := NewError(CodeProvider, "", err)
	pe.Provider = provider
	return pe
}

// Errorf is NewError with a formatted message.
func Errorf(code ErrorCode, format string, args ...any) *Error {
	return NewError(code, fmt.Sprintf(format, args...), nil)
}

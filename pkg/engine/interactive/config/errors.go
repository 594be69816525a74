package config

import (
	"errors"
	"fmt"
	"strings"
)

var (
	// ErrSyntax: a settings file is not valid JSON.
	ErrSyntax = errors.New("malformed JSON")
	// ErrType: a value has the wrong JSON type.
	ErrType = errors.New("wrong type")
	// ErrValue: a value has the right type but is not allowed (enum, range, reference).
	ErrValue = errors.New("invalid value")
	// ErrMissingProfile: currentProvider (or --provider) names no profile in providers.
	ErrMissingProfile = errors.New("missing provider profile")
	// ErrProfileType: a provider profile has no type.
	ErrProfileType = errors.New("provider profile has no type")
	// ErrRead: a settings file exists but cannot be read.
	ErrRead = errors.New("cannot read settings file")
)

// Severity tells a warning (reported, loading goes on) from an error (loading fails).
type Severity string

// The two severities.
const (
	SeverityWarning Severity = "warning"
	SeverityError   Severity = "error"
)

// Issue is one validation finding. File is the layer's display name
// (`.claude/settings.json`, `~/.robota/settings.json`, `command line`); Path is the
// key path inside the file (`providers.work.timeout`, `hooks.Stop[0].hooks[1].type`),
// empty for a finding about the whole file. Line and Column (1-based) are set for
// malformed JSON only.
type Issue struct {
	Severity Severity
	File     string
	Path     string
	Line     int
	Column   int
	Message  string
	// Err is the sentinel the issue wraps (nil for warnings).
	Err error
}

// String renders `file:line:col: message` or `file: path: message`.
func (i Issue) String() string {
	var b strings.Builder
	b.WriteString(i.File)
	if i.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", i.Line, i.Column)
	}
	b.WriteString(": ")
	if i.Path != "" {
		b.WriteString(i.Path)
		b.WriteString(": ")
	}
	b.WriteString(i.Message)
	return b.String()
}

// ValidationError is returned by Load and Build when any file has an error. Issues holds
// every finding, warnings included, in layer order.
type ValidationError struct {
	Issues []Issue
}

// Error lists the errors, one a line.
func (e *ValidationError) Error() string {
	var lines []string
	for _, i := range e.Issues {
		if i.Severity == SeverityError {
			lines = append(lines, i.String())
		}
	}
	if len(lines) == 1 {
		return "settings: " + lines[0]
	}
	return fmt.Sprintf("settings: %d errors:\n  %s", len(lines), strings.Join(lines, "\n  "))
}

// Unwrap exposes the sentinels so errors.Is(err, ErrMissingProfile) works.
func (e *ValidationError) Unwrap() []error {
	var errs []error
	for _, i := range e.Issues {
		if i.Err != nil {
			errs = append(errs, i.Err)
		}
	}
	return errs
}

// Errors returns the error findings only.
func (e *ValidationError) Errors() []Issue {
	var out []Issue
	for _, i := range e.Issues {
		if i.Severity == SeverityError {
			out = append(out, i)
		}
	}
	return out
}

func hasErrors(issues []Issue) bool {
	for _, i := range issues {
		if i.Severity == SeverityError {
			return true
		}
	}
	return false
}

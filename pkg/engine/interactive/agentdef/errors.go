package agentdef

import (
	"errors"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive/frontmatter"
)

// Sentinel errors a Problem wraps; callers test them with errors.Is.
var (
	// ErrNoFrontmatter: the file does not start with a `---` frontmatter block.
	ErrNoFrontmatter = errors.New("no YAML frontmatter")
	// ErrMalformed: the frontmatter is not a YAML mapping, even after the quoting retry;
	// a warning: the file is read as `key: value` lines (frontmatter.Fallback).
	ErrMalformed error = &frontmatter.Malformed
	// ErrMissingDescription: the frontmatter has no non-empty description.
	ErrMissingDescription = errors.New(`missing required "description" in frontmatter`)
	// ErrInvalidName: neither the frontmatter nor the file name gives a name.
	ErrInvalidName = errors.New("invalid agent name")
	// ErrInvalidField: a known field has a value of the wrong shape; the field is ignored
	// and the definition still loads.
	ErrInvalidField = errors.New("invalid frontmatter field")
)

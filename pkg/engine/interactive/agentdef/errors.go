package agentdef

import "errors"

// Sentinel errors a Problem wraps; callers test them with errors.Is.
var (
	// ErrNoFrontmatter: the file does not start with a `---` frontmatter block.
	ErrNoFrontmatter = errors.New("no YAML frontmatter")
	// ErrMalformed: the frontmatter is not a YAML mapping, even after the lenient retry.
	ErrMalformed = errors.New("malformed YAML frontmatter")
	// ErrMissingDescription: the frontmatter has no non-empty description.
	ErrMissingDescription = errors.New(`missing required "description" in frontmatter`)
	// ErrInvalidName: the name is empty after trimming or starts with "-".
	ErrInvalidName = errors.New("invalid agent name")
	// ErrInvalidField: a known field has a value of the wrong shape; the field is ignored
	// and the definition still loads.
	ErrInvalidField = errors.New("invalid frontmatter field")
)

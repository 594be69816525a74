package skills

import (
	"errors"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive/frontmatter"
)

// Sentinel errors a Problem or a call wraps; test them with errors.Is.
var (
	// ErrMalformed: the frontmatter is not a YAML mapping, even after the quoting retry,
	// or its opening --- is never closed; a warning: the file still loads.
	ErrMalformed error = &frontmatter.Malformed
	// ErrInvalidField: a known field has a value of the wrong shape; it is ignored and
	// the skill still loads.
	ErrInvalidField = errors.New("invalid frontmatter field")
	// ErrDuplicate: a second skill of one name in the same directory.
	ErrDuplicate = errors.New("duplicate skill name")
	// ErrUnreadable: the file cannot be read or is larger than MaxFileSize.
	ErrUnreadable = errors.New("unreadable skill file")
	// ErrUnknownSkill: no skill of the name asked for.
	ErrUnknownSkill = errors.New("unknown skill")
	// ErrModelInvocationDisabled: the skill has disable-model-invocation: true.
	ErrModelInvocationDisabled = errors.New("skill cannot be invoked by the model")
)

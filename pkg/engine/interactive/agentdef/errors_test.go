package agentdef

import (
	"testing"

	"github.com/robota-sdk/robota-go/pkg/engine/interactive/frontmatter"
)

// ErrMalformed is frontmatter's sentinel itself, so errors.Is matches either name.
func TestErrMalformedIsFrontmatters(t *testing.T) {
	if ErrMalformed != frontmatter.ErrMalformed || ErrMalformed.Error() != "malformed YAML frontmatter" {
		t.Fatalf("ErrMalformed = %v, want frontmatter.ErrMalformed", ErrMalformed)
	}
}

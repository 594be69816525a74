package frontmatter

import "github.com/robota-sdk/robota-go/internal/sentinel"

// ErrMalformed: the header is not a YAML mapping, even after the quoting retry. Decode
// returns it; Parse records it in Doc.YAMLError and reads the header line by line.
var ErrMalformed error = &Malformed

// Malformed is the value ErrMalformed points to; compare errors with ErrMalformed. A
// package that re-exports the sentinel declares `ErrMalformed error =
// &frontmatter.Malformed` (internal/sentinel says why).
var Malformed = sentinel.New("malformed YAML frontmatter")

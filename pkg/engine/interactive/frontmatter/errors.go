package frontmatter

import "errors"

// ErrMalformed: the header is not a YAML mapping, even after the quoting retry. Decode
// returns it; Parse records it in Doc.YAMLError and reads the header line by line.
var ErrMalformed = errors.New("malformed YAML frontmatter")

package frontmatter

// ErrMalformed: the header is not a YAML mapping, even after the quoting retry. Decode
// returns it; Parse records it in Doc.YAMLError and reads the header line by line.
var ErrMalformed error = &Malformed

// Malformed is the error ErrMalformed points to. A package that re-exports the sentinel
// declares `ErrMalformed error = &frontmatter.Malformed`: the same error, which the
// compiler lays out, where a copy of frontmatter.ErrMalformed would be init code (issue 29).
var Malformed = Sentinel{msg: "malformed YAML frontmatter"}

// Sentinel is an error with a fixed message, told apart by identity (errors.Is).
type Sentinel struct{ msg string }

func (e *Sentinel) Error() string { return e.msg }

package frontmatter

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// FuzzParse: Parse never panics and never fails; what it returns is coherent: fields are
// never nil nodes, a YAML error is reported exactly when Decode refuses the header, the
// fallback's keys are `key:` words, and a file without a header is all body.
func FuzzParse(f *testing.F) {
	_ = filepath.WalkDir("testdata/corpus", func(p string, _ os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".md") {
			if data, err := os.ReadFile(p); err == nil {
				f.Add(data)
			}
		}
		return nil
	})
	f.Add([]byte("---\n---\n"))
	f.Add([]byte("---\nname: a\ndescription: b: c\n<example>\nuser: x\n</example>\ntools: [x, y\n---\n"))
	f.Add([]byte("---\nargument-hint: [a] [b]\nk: |\n  one\n  two\nlist:\n  - a\n  - \"b\"\n---\nbody"))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc := Parse(data)
		if doc.Fields == nil {
			t.Fatal("nil fields")
		}
		for k, n := range doc.Fields {
			if n == nil {
				t.Fatalf("key %q has a nil node", k)
			}
			_ = ToolList(n)
		}
		if !doc.Found {
			if len(doc.Fields) != 0 || doc.YAMLError != nil {
				t.Fatalf("no header, yet fields %v, error %v", doc.Fields, doc.YAMLError)
			}
			return
		}
		front, _, _ := Split(data)
		_, err := Decode(front)
		if (err == nil) != (doc.YAMLError == nil) {
			t.Fatalf("Decode error %v, Parse's %v", err, doc.YAMLError)
		}
		if doc.YAMLError != nil {
			if !errors.Is(doc.YAMLError, ErrMalformed) {
				t.Fatalf("YAML error %v does not wrap ErrMalformed", doc.YAMLError)
			}
			for k, n := range doc.Fields {
				if !keyLine.MatchString(k + ":") {
					t.Fatalf("fallback key %q is not a key", k)
				}
				if n.Kind == yaml.ScalarNode && n.Tag != "!!null" && n.Value == "" && n.Tag != "!!str" {
					t.Fatalf("key %q: empty value tagged %s", k, n.Tag)
				}
			}
		}
	})
}

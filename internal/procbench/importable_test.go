package procbench

import "testing"

func TestImportable(t *testing.T) {
	const importer = "example.com/m/internal/procbench/initsonly"
	for _, tc := range []struct {
		pkg  string
		want bool
	}{
		{"example.com/m/pkg/cli", true},
		{"example.com/m/internal/startstack", true},
		{"example.com/m/internal", true},
		{"example.com/m/pkg/providers/internal/transport", false},
		{"example.com/m/pkg/internal", false},
		{"github.com/x/y/internal/z", false},
		{"github.com/x/internalize", true},
	} {
		if got := importable(importer, tc.pkg); got != tc.want {
			t.Errorf("importable(%q, %q) = %v, want %v", importer, tc.pkg, got, tc.want)
		}
	}
}

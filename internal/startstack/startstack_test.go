package startstack

import (
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

// An allocation would mean the compiler moved a frame to the heap, and the stack
// would no longer grow.
func TestGrowDoesNotAllocate(t *testing.T) {
	if n := testing.AllocsPerRun(20, func() { sink = grow(depth) }); n != 0 {
		t.Fatalf("grow allocates %v times a run; its frames must stay on the stack", n)
	}
}

// The stack must reach 128 KiB: the runtime doubles it until the frames fit, so they
// must need more than 64 KiB.
func TestFramesNeedMoreThanHalfTheTarget(t *testing.T) {
	if need := frameBytes * (depth + 1); need <= 64<<10 || need > 128<<10 {
		t.Fatalf("grow's frames take %d bytes; want more than 64 KiB and at most 128 KiB", need)
	}
}

// A package with imports waits for them, and libraries' inits may run first.
func TestImportsNothing(t *testing.T) {
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			t.Errorf("%s imports %s; startstack must import nothing to be initialized first", e.Name(), imp.Path.Value)
		}
	}
}

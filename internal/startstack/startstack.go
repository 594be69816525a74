// Package startstack grows the main goroutine's stack to 128 KiB once, before any
// library's init runs. Each of robota's executables imports it, blank, from its main
// package.
//
// Why: Go starts the main goroutine on a 2 KiB stack and doubles it whenever a call
// does not fit, copying the whole stack each time. A copy walks every frame on the
// stack and reads that function's stack maps from .gopclntab, and each read of a
// region not yet in memory pages in 64 KiB of the executable. The package inits of
// libraries we link grow the stack to 64 or 128 KiB in five or six steps, the last ones
// deep inside regexp compilation (protobuf's JSON decoder, goldmark, go-git), so the
// copies touch the stack maps of functions from all over the binary. Growing it here,
// while the stack holds only the runtime's frames and grow's own, costs copies of
// almost nothing, and the later inits never need a larger stack. Measured with the
// binaries on tmpfs (median peak RSS of 11 runs): `robota --version` 20,680 →
// 19,464 KiB, robota-worker 16,708 → 15,940 KiB, robota-provider 16,964 → 16,132 KiB,
// `robota-engine --version` 28,776 → 28,200 KiB (issue 29).
//
// It works only if it runs before the libraries' inits, so the package imports nothing.
// The linker orders inits as the Go spec says: at each step, the first package in
// import-path order whose imports are all initialized. A package without imports is
// ready from the start, so only packages both earlier in that order and ready before
// it can go first; in our executables those are the runtime and a few of the standard
// library's internal packages (integration's TestStackGrownBeforeLibraryInits checks
// it on the built binaries). It is all stack: grow allocates nothing on the heap
// (TestGrowDoesNotAllocate).
package startstack

// grow's depth+1 frames of frameBytes must need more than 64 KiB, so the runtime sizes
// the stack at 128 KiB. Small frames keep far from the compiler's 128 KiB limit for a
// variable kept on the stack, which one big array would sit next to.
const (
	frameBytes = 8 << 10
	depth      = 9
)

// grow recurses n times through frames of frameBytes and returns a byte of the last
// one, so the compiler cannot drop the frames.
//
//go:noinline
func grow(n int) byte {
	var frame [frameBytes]byte
	frame[n] = byte(n)
	if n > 0 {
		frame[0] = grow(n - 1)
	}
	return frame[n] + frame[0]
}

var sink byte

func init() { sink = grow(depth) }

// Package lazy holds package-level values that are built on first use instead of in a
// package init.
//
// Why: every package init of an executable runs before main, whatever the command, and
// an init's code and data are paged in from all over the binary (64 KiB at a time, by
// the kernel's fault-around). The inits of our own packages (compiled regular
// expressions, lookup maps, JSON schemas) that `robota --version` never used cost it
// 1.5 MiB of peak RSS: 19,592 → 18,076 KiB once they moved here (issue 29). The
// integration test TestOurPackagesDoNoInitWork keeps it so.
//
// A Value or Regexp declared as a composite literal, or through NewRegexp, is laid out
// by the compiler and needs no init code. It is built once, by the first Get (or the
// first match), and is safe for concurrent use. A build that panics panics again in
// every later caller (as sync.OnceValue does), so a broken table or expression can never
// be read as an empty one.
package lazy

import (
	"regexp"
	"sync"
)

// Value is a package-level value built by Build on first use. Declare it as a
// composite literal so the compiler lays it out statically:
//
//	var table = &lazy.Value[map[string]bool]{Build: func() map[string]bool { ... }}
//
// and read it with table.Get(). Build must not call Get on the same Value.
type Value[T any] struct {
	Build func() T
	g     guard
	v     T
}

// Get returns the value, building it on the first call.
func (l *Value[T]) Get() T {
	l.g.do(l.build)
	return l.v
}

func (l *Value[T]) build() { l.v = l.Build() }

// Regexp is a regular expression compiled on first use. Its source must compile, as for
// regexp.MustCompile; a test in the declaring package that uses the expression catches
// a bad one before a user does.
type Regexp struct {
	src string
	g   guard
	re  *regexp.Regexp
}

// NewRegexp returns a Regexp for src. It is small enough to be inlined, so a
// package-level `var x = lazy.NewRegexp(...)` needs no init code.
func NewRegexp(src string) *Regexp { return &Regexp{src: src} }

// Regexp returns the compiled expression, compiling it on the first call.
func (r *Regexp) Regexp() *regexp.Regexp {
	r.g.do(r.compile)
	return r.re
}

func (r *Regexp) compile() { r.re = regexp.MustCompile(r.src) }

// guard runs a build once and replays its panic to every later caller.
type guard struct {
	once sync.Once
	ok   bool
	p    any
}

func (g *guard) do(build func()) {
	g.once.Do(func() {
		defer func() {
			if !g.ok {
				g.p = recover()
			}
		}()
		build()
		g.ok = true
	})
	if !g.ok {
		panic(g.p)
	}
}

// String returns the source text.
func (r *Regexp) String() string { return r.src }

// The methods below forward to the compiled expression's.

func (r *Regexp) MatchString(s string) bool { return r.Regexp().MatchString(s) }
func (r *Regexp) Match(b []byte) bool       { return r.Regexp().Match(b) }
func (r *Regexp) FindString(s string) string {
	return r.Regexp().FindString(s)
}
func (r *Regexp) FindStringIndex(s string) []int { return r.Regexp().FindStringIndex(s) }
func (r *Regexp) FindIndex(b []byte) []int       { return r.Regexp().FindIndex(b) }
func (r *Regexp) FindStringSubmatch(s string) []string {
	return r.Regexp().FindStringSubmatch(s)
}
func (r *Regexp) FindStringSubmatchIndex(s string) []int {
	return r.Regexp().FindStringSubmatchIndex(s)
}
func (r *Regexp) FindAllString(s string, n int) []string {
	return r.Regexp().FindAllString(s, n)
}
func (r *Regexp) FindAllStringIndex(s string, n int) [][]int {
	return r.Regexp().FindAllStringIndex(s, n)
}
func (r *Regexp) FindAllIndex(b []byte, n int) [][]int { return r.Regexp().FindAllIndex(b, n) }
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.Regexp().FindAllStringSubmatch(s, n)
}
func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return r.Regexp().FindAllStringSubmatchIndex(s, n)
}
func (r *Regexp) ReplaceAllString(src, repl string) string {
	return r.Regexp().ReplaceAllString(src, repl)
}
func (r *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return r.Regexp().ReplaceAllStringFunc(src, repl)
}
func (r *Regexp) Split(s string, n int) []string { return r.Regexp().Split(s, n) }
func (r *Regexp) SubexpIndex(name string) int    { return r.Regexp().SubexpIndex(name) }

package lazy

import (
	"sync"
	"sync/atomic"
	"testing"
)

func TestValueBuildsOnceUnderConcurrentGets(t *testing.T) {
	var builds atomic.Int32
	v := &Value[map[string]int]{Build: func() map[string]int {
		builds.Add(1)
		return map[string]int{"a": 1}
	}}
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			if got := v.Get()["a"]; got != 1 {
				t.Errorf("Get()[a] = %d, want 1", got)
			}
		})
	}
	wg.Wait()
	if n := builds.Load(); n != 1 {
		t.Fatalf("Build ran %d times, want 1", n)
	}
}

func TestAPanickingBuildPanicsInEveryCaller(t *testing.T) {
	builds := 0
	v := &Value[map[string]bool]{Build: func() map[string]bool {
		builds++
		panic("broken table")
	}}
	for i := range 3 {
		func() {
			defer func() {
				if p := recover(); p != "broken table" {
					t.Errorf("call %d: recovered %v, want the build's panic", i, p)
				}
			}()
			m := v.Get()
			t.Errorf("call %d: Get returned %v instead of panicking", i, m)
		}()
	}
	if builds != 1 {
		t.Fatalf("Build ran %d times, want 1", builds)
	}
}

func TestRegexpCompilesOnFirstUse(t *testing.T) {
	r := NewRegexp(`^a(b+)c$`)
	if r.re != nil {
		t.Fatal("compiled before first use")
	}
	if !r.MatchString("abbc") || r.MatchString("ac") {
		t.Fatal("MatchString disagrees with the expression")
	}
	if got := r.FindStringSubmatch("abbbc"); len(got) != 2 || got[1] != "bbb" {
		t.Fatalf("FindStringSubmatch = %q", got)
	}
	if got := r.ReplaceAllString("abc", "x"); got != "x" {
		t.Fatalf("ReplaceAllString = %q", got)
	}
	if r.String() != `^a(b+)c$` || r.Regexp() != r.Regexp() {
		t.Fatal("String or Regexp changed between calls")
	}
}

func TestABadRegexpPanicsInEveryCaller(t *testing.T) {
	r := NewRegexp(`(`)
	for i := range 2 {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("call %d: no panic for a source that does not compile", i)
				}
			}()
			r.MatchString("x")
		}()
	}
}

package integration

import (
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestOurPackagesDoNoInitWork: none of our packages linked into an executable does work
// in a package init, apart from the two that must. Every init runs before main on every
// command and pages in its code and data from all over the binary: our own inits cost
// `robota --version` 1.5 MiB of peak RSS before they moved to first use (internal/lazy,
// internal/sentinel; issue 29). A package has an init task in the binary only when it
// has init work, so the symbol table says which ones do.
func TestOurPackagesDoNoInitWork(t *testing.T) {
	const module = "github.com/robota-sdk/robota-go/"
	allowed := map[string]string{
		"internal/startstack": "grows the main stack before the libraries' inits: that is its purpose",
		"gen/robota/v1":       "protoc-gen-go's generated code registers its file descriptors at init",
	}
	for _, bin := range []string{"robota", "robota-engine", "robota-worker", "robota-provider", "robota-sandbox"} {
		t.Run(bin, func(t *testing.T) {
			out, err := exec.Command("go", "tool", "nm", filepath.Join(binDir, bin)).Output()
			if err != nil {
				t.Fatalf("go tool nm: %v", err)
			}
			var withInit []string
			for _, line := range strings.Split(string(out), "\n") {
				fields := strings.Fields(line)
				if len(fields) < 3 {
					continue
				}
				pkg, ok := strings.CutSuffix(fields[len(fields)-1], "..inittask")
				if ok && strings.HasPrefix(pkg, module) {
					withInit = append(withInit, strings.TrimPrefix(pkg, module))
				}
			}
			if bin == "robota" && !slices.Contains(withInit, "internal/startstack") {
				t.Fatalf("no init task found for internal/startstack, which has one: the check would prove nothing (found %q)", withInit)
			}
			for _, pkg := range withInit {
				if _, ok := allowed[pkg]; !ok {
					t.Errorf("%s does work in a package init; build it on first use instead (internal/lazy, internal/sentinel)", pkg)
				}
			}
		})
	}
}

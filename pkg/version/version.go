// Package version reports the build's version, stamped by the Makefile with
// -ldflags "-X github.com/robota-sdk/robota-go/pkg/version.Version=...", or
// taken from the module build info for `go install` builds.
package version

import "runtime/debug"

// Version is set at link time; empty means "ask the build info".
var Version = ""

// String returns the version, "dev" when nothing better is known.
func String() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

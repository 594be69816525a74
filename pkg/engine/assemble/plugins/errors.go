package plugins

import (
	"errors"
	"fmt"
)

// Sentinel errors a Problem wraps; callers test them with errors.Is.
var (
	// ErrManifest: plugin.json cannot be read or is not a valid manifest.
	ErrManifest = errors.New("invalid plugin manifest")
	// ErrMarketplace: marketplace.json cannot be read or is not a valid marketplace.
	ErrMarketplace = errors.New("invalid marketplace")
	// ErrNotFound: a plugin, marketplace or component path does not exist.
	ErrNotFound = errors.New("not found")
	// ErrEscape: a path leaves the plugin's (or marketplace's) root, by "..", an absolute
	// path or a symbolic link.
	ErrEscape = errors.New("path leaves the plugin root")
	// ErrUnsupported: a source or component this build cannot load (npm, pip, MCPB, a
	// marketplace served as a URL of its JSON file).
	ErrUnsupported = errors.New("not supported")
	// ErrComponent: a component file (hooks, MCP servers) is malformed.
	ErrComponent = errors.New("invalid plugin component")
	// ErrNotInstalled: a plugin the project's own settings enable is not installed by the user.
	ErrNotInstalled = errors.New("not installed")
	// ErrFetch: cloning or updating a git source failed.
	ErrFetch = errors.New("fetching failed")
	// ErrBadID: a plugin id is not "name@marketplace", or a name is unusable.
	ErrBadID = errors.New("invalid plugin id")
)

// Problem is a warning about one plugin or marketplace: what it is (ID, e.g.
// "formatter@tools", or a marketplace's name), the file concerned, and why. A problem
// with Skipped set means the plugin did not load at all; otherwise one part of it
// (a component path, the hooks file) was left out and the rest loaded.
type Problem struct {
	Plugin      string
	Marketplace string
	Path        string
	Skipped     bool
	Err         error
}

func (p Problem) Error() string {
	what := "plugin " + p.Plugin
	if p.Plugin == "" {
		what = "marketplace " + p.Marketplace
	}
	where := ""
	if p.Path != "" {
		where = " (" + p.Path + ")"
	}
	if p.Skipped {
		return fmt.Sprintf("%s not loaded%s: %v", what, where, p.Err)
	}
	return fmt.Sprintf("%s%s: %v", what, where, p.Err)
}

func (p Problem) Unwrap() error { return p.Err }

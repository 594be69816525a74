package hook

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/robota-sdk/robota-go/internal/lazy"
	"github.com/robota-sdk/robota-go/pkg/engine/session/sessionlog/redact"
)

// maxDescribedCommand bounds how much of a hook command reaches logs and error
// messages, in characters.
const maxDescribedCommand = 60

// describe names a hook for logs and error messages without what it may carry of
// secrets: a webhook URL's path and query often are the credential, and a command
// line may hold a token. URLs are cut to scheme and host; commands are redacted and
// shortened.
func describe(h Definition) string {
	switch {
	case h.Command != "":
		return fmt.Sprintf("%s hook %q", h.Type, safeCommand(h.Command))
	case h.URL != "":
		return fmt.Sprintf("%s hook %s", h.Type, safeURL(h.URL))
	}
	return h.Type + " hook"
}

// safeURL keeps the scheme and host of a URL: no user info, path, query or fragment.
func safeURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(unparsable URL)"
	}
	if u.Path == "" && u.RawQuery == "" && u.Fragment == "" && u.User == nil {
		return u.Scheme + "://" + u.Host
	}
	return u.Scheme + "://" + u.Host + "/…"
}

// Compiled on first use, not at start-up: every robota run, --version included, pays for
// package initialisation (PERF-NOTES.md).
var urlInText = lazy.NewRegexp(`[A-Za-z][A-Za-z0-9+.-]*://[^\s'"<>]+`)

// safeCommand redacts secret-shaped text, reduces URLs to scheme and host, folds
// white space and keeps at most maxDescribedCommand characters.
func safeCommand(cmd string) string {
	s := urlInText.ReplaceAllStringFunc(cmd, safeURL)
	s = redact.String(s)
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > maxDescribedCommand {
		s = string(r[:maxDescribedCommand-1]) + "…"
	}
	return s
}

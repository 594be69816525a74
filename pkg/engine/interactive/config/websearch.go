package config

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

// WebSearchBackends are the values `webSearch.backend` accepts: the provider's own hosted
// search, or a search API.
var WebSearchBackends = []string{"native", "brave", "tavily", "searxng"}

// webSearchKeyVar is the variable the not-configured hints suggest for a backend.
func webSearchKeyVar(backend string) string {
	switch backend {
	case "brave":
		return "BRAVE_API_KEY"
	case "tavily":
		return "TAVILY_API_KEY"
	}
	return ""
}

// WebSearch is the `webSearch` setting: what backs the WebSearch tool. The zero value
// (no `webSearch` key) chooses no backend: the session then uses the provider's hosted
// search when it has one, else the tool says how to configure a backend.
type WebSearch struct {
	// Backend is one of WebSearchBackends, or "" when none is configured.
	Backend string
	// URL is the endpoint ("" for the API's default; required for searxng).
	URL string
	// APIKey is the key with its `$ENV:NAME` reference substituted. It is a secret: it
	// is never part of a message. "" when absent, unset or withheld (Unavailable says why).
	APIKey string
	// MaxResults is `maxResults` (0: the backend's default).
	MaxResults int
	// Source is the file that set backend.
	Source Source
	// Unavailable is why the configured backend cannot search ("" when it can): its key's
	// variable is not set, or the key was withheld by the credential rule.
	Unavailable string
}

// webSearchSchema validates one file's `webSearch` object. Which keys a backend needs is
// checked on the merged view (checkWebSearch): layers may split them.
func webSearchSchema() *node {
	return object(map[string]*node{
		"backend":    enum(WebSearchBackends...),
		"apiKey":     providerString(),
		"url":        httpURL(),
		"maxResults": positiveInteger(),
	})
}

// httpURL is an absolute http or https URL.
func httpURL() *node {
	return &node{kind: kindString, check: func(v any) string {
		u, err := url.Parse(v.(string))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Sprintf("want an http or https URL, got %q", v)
		}
		return ""
	}}
}

// webSearchShape is the typed view of the merged `webSearch` object (apiKey still
// unsubstituted).
type webSearchShape struct {
	Backend    string      `json:"backend"`
	URL        string      `json:"url"`
	APIKey     string      `json:"apiKey"`
	MaxResults json.Number `json:"maxResults"`
}

// resolveWebSearch fills s.WebSearch from the merged shape: substitutes the key's
// `$ENV:` reference and applies the credential rule (credentials.go) to it. A `$ENV:`
// key is not substituted, and a key written by another file is dropped, when a project
// or local file chose the endpoint (`url`): a repository must not send the user's key to
// a host it names. It returns the errors (a backend without what it needs, naming the
// file and key) and the warnings.
func (s *Settings) resolveWebSearch(shape *webSearchShape, env Env) (errs, warns []Issue) {
	if shape == nil || shape.Backend == "" {
		if shape != nil && (shape.APIKey != "" || shape.URL != "") {
			src := s.originOf("webSearch")
			warns = append(warns, Issue{Severity: SeverityWarning, File: src.Display, Path: "webSearch.backend",
				Message: "not set: webSearch has no effect without a backend (" + strings.Join(WebSearchBackends, ", ") + ")"})
		}
		return nil, warns
	}
	ws := WebSearch{Backend: shape.Backend, URL: shape.URL, Source: s.originOf("webSearch.backend")}
	if n, err := shape.MaxResults.Int64(); err == nil && n > 0 {
		ws.MaxResults = int(n)
	}
	fail := func(path, format string, args ...any) {
		errs = append(errs, Issue{Severity: SeverityError, File: ws.Source.Display, Path: path,
			Message: fmt.Sprintf(format, args...), Err: ErrValue})
	}
	switch ws.Backend {
	case "brave", "tavily":
		if shape.APIKey == "" {
			fail("webSearch.apiKey", `the %s backend needs an API key: add "apiKey": "$ENV:%s"`, ws.Backend, webSearchKeyVar(ws.Backend))
		}
	case "searxng":
		if shape.URL == "" {
			fail("webSearch.url", `the searxng backend needs the instance's address: add "url": "https://your-instance"`)
		}
	}
	if len(errs) > 0 {
		return errs, warns
	}
	key := shape.APIKey
	keySrc := s.originOf("webSearch.apiKey")
	urlSrc, urlSet := s.Origin("webSearch.url")
	guarded := shape.URL != "" && urlSet && isProjectScope(s.originOf("webSearch.url"))
	ref := envRefPattern.MatchString(key)
	switch {
	case key == "":
	case guarded && (ref || keySrc.Path != urlSrc.Path):
		what := "the key " + keySrc.Display + " sets"
		if ref {
			what = key
		}
		ws.Unavailable = fmt.Sprintf("%s is not used: %s, a project settings file, sets webSearch.url, and a key from the environment or another file is never sent to an endpoint a project file chose (write the key literally in that file, or set url in user settings)",
			what, urlSrc.Display)
		warns = append(warns, Issue{Severity: SeverityWarning, File: urlSrc.Display, Path: "webSearch.apiKey", Message: ws.Unavailable})
	case ref:
		name := strings.TrimPrefix(key, envPrefix)
		if env == nil {
			env = func(string) (string, bool) { return "", false }
		}
		if v, ok := env(name); ok && v != "" {
			ws.APIKey = v
		} else {
			ws.Unavailable = fmt.Sprintf("the %s backend's API key is not set: webSearch.apiKey in %s names $ENV:%s, which is not in the environment",
				ws.Backend, keySrc.Display, name)
			warns = append(warns, Issue{Severity: SeverityWarning, File: keySrc.Display, Path: "webSearch.apiKey",
				Message: fmt.Sprintf("$ENV:%s is not set; WebSearch will report it", name)})
		}
	default:
		ws.APIKey = key
	}
	s.WebSearch = ws
	return nil, warns
}

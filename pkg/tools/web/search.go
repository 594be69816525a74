package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/tools"
	"github.com/robota-sdk/robota-go/pkg/tools/internal/toolkit"
	"github.com/robota-sdk/robota-go/pkg/tools/record"
)

// SearchParams are the WebSearch tool's parameters.
type SearchParams struct {
	Query          string   `json:"query" jsonschema:"The search query to use"`
	AllowedDomains []string `json:"allowed_domains,omitempty" jsonschema:"Only include results from these domains"`
	BlockedDomains []string `json:"blocked_domains,omitempty" jsonschema:"Never include results from these domains"`
}

// SearchRequest is what a SearchBackend is asked.
type SearchRequest struct {
	Query          string
	AllowedDomains []string
	BlockedDomains []string
}

// SearchResult is one hit.
type SearchResult struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet,omitempty"`
}

// SearchBackend performs web searches (a search API, or a provider-native search).
type SearchBackend interface {
	Search(ctx context.Context, req SearchRequest) ([]SearchResult, error)
}

// Answerer is a backend that answers in prose rather than a result list: a model that
// searched with its provider's hosted search tool (Claude Code's own WebSearch works so).
// When a backend implements it, WebSearch returns the answer as its result.
type Answerer interface {
	Answer(ctx context.Context, req SearchRequest) (string, error)
}

// Unavailable is a backend that cannot search, with the reason the tool reports (a
// configured backend that is missing its key, a native backend on a provider without
// hosted search).
type Unavailable string

// Search fails with the reason.
func (u Unavailable) Search(context.Context, SearchRequest) ([]SearchResult, error) {
	return nil, errors.New(string(u))
}

// Unavailable returns the reason.
func (u Unavailable) Unavailable() string { return string(u) }

// unavailabler is a backend that may not be able to search; a non-empty reason makes
// WebSearch fail with it, as not available, before anything is sent.
type unavailabler interface{ Unavailable() string }

// NotAvailablePrefix starts WebSearch's result when its backend cannot search; the
// backend's Unavailable reason follows.
const NotAvailablePrefix = "WebSearch is not available: "

// NotConfiguredMessage is WebSearch's result when no backend is configured: what to write
// in settings.json.
const NotConfiguredMessage = NotAvailablePrefix + `no web search backend is configured. ` +
	`To enable it, set "webSearch" in ~/.robota/settings.json (or the project's .robota/settings.json), one of:
  {"webSearch": {"backend": "brave", "apiKey": "$ENV:BRAVE_API_KEY"}}
  {"webSearch": {"backend": "tavily", "apiKey": "$ENV:TAVILY_API_KEY"}}
  {"webSearch": {"backend": "searxng", "url": "https://searx.example.org"}}
  {"webSearch": {"backend": "native"}}  (the provider's own search: Anthropic, where it is the default)`

const searchDescription = `Searches the web and returns result titles, URLs and snippets.
- Use it for information beyond the model's knowledge: recent events, current documentation.
- allowed_domains or blocked_domains (not both) restrict the results.
- Cite the URLs you use.`

// Search is the WebSearch tool.
type Search struct {
	*tools.Typed[SearchParams]
	backend SearchBackend
}

// NewSearch builds the WebSearch tool; backend may be nil (the tool then says it is not
// available).
func NewSearch(backend SearchBackend) (*Search, error) {
	s := &Search{backend: backend}
	typed, err := tools.New("WebSearch", searchDescription, s.run, tools.WithFixedSchema(func(sc *jsonschema.Schema) {
		if q := sc.Properties["query"]; q != nil {
			two := 2
			q.MinLength = &two
		}
	}))
	if err != nil {
		return nil, err
	}
	s.Typed = typed
	return s, nil
}

// ConcurrencySafe reports that WebSearch only reads: the agent may run its calls alongside
// other read-only calls of the same message.
func (s *Search) ConcurrencySafe(json.RawMessage) bool { return true }

// Describe returns the call record: the query.
func (s *Search) Describe(args json.RawMessage) record.Call {
	p, err := s.Decode(args)
	if err != nil {
		return record.Call{}
	}
	return record.Call{FirstArg: p.Query}
}

func (s *Search) run(ctx context.Context, p SearchParams) llm.ToolResult {
	rec := record.Call{FirstArg: p.Query}
	if s.backend == nil {
		return toolkit.Failure(rec, toolkit.CodeNotAvailable, NotConfiguredMessage, nil)
	}
	if u, ok := s.backend.(unavailabler); ok && u.Unavailable() != "" {
		return toolkit.Failure(rec, toolkit.CodeNotAvailable, NotAvailablePrefix+u.Unavailable(), nil)
	}
	if len(p.AllowedDomains) > 0 && len(p.BlockedDomains) > 0 {
		return toolkit.Failure(rec, toolkit.CodeInvalidArgument, "Give allowed_domains or blocked_domains, not both.", nil)
	}
	allowed, blocked := normalizeDomains(p.AllowedDomains), normalizeDomains(p.BlockedDomains)
	if a, ok := s.backend.(Answerer); ok {
		answer, err := a.Answer(ctx, SearchRequest{Query: p.Query, AllowedDomains: allowed, BlockedDomains: blocked})
		if err != nil {
			if ctx.Err() != nil {
				return toolkit.Failure(rec, toolkit.CodeAborted, "The web search was aborted.", nil)
			}
			return toolkit.Failure(rec, "search_failed", "Web search failed: "+err.Error(), nil)
		}
		return toolkit.Success(rec, fmt.Sprintf("Web search results for query: %q\n\n%s", p.Query, strings.TrimSpace(answer)), nil)
	}
	results, err := s.backend.Search(ctx, SearchRequest{Query: p.Query, AllowedDomains: allowed, BlockedDomains: blocked})
	if err != nil {
		if ctx.Err() != nil {
			return toolkit.Failure(rec, toolkit.CodeAborted, "The web search was aborted.", nil)
		}
		return toolkit.Failure(rec, "search_failed", "Web search failed: "+err.Error(), nil)
	}
	var kept []SearchResult
	for _, r := range results {
		host := hostOf(r.URL)
		if host == "" || (len(allowed) > 0 && !inDomains(host, allowed)) || inDomains(host, blocked) {
			continue
		}
		kept = append(kept, r)
	}
	meta := map[string]any{"numResults": len(kept)}
	if len(kept) == 0 {
		return toolkit.Success(rec, fmt.Sprintf("No results found for query: %q", p.Query), meta)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Web search results for query: %q\n", p.Query)
	for i, r := range kept {
		fmt.Fprintf(&b, "\n%d. %s\n   %s\n", i+1, strings.TrimSpace(r.Title), r.URL)
		if snippet := strings.TrimSpace(r.Snippet); snippet != "" {
			fmt.Fprintf(&b, "   %s\n", strings.Join(strings.Fields(snippet), " "))
		}
	}
	return toolkit.Success(rec, strings.TrimSuffix(b.String(), "\n"), meta)
}

// normalizeDomains lower-cases domains and strips schemes, paths and a leading "www." or ".".
func normalizeDomains(domains []string) []string {
	var out []string
	for _, d := range domains {
		d = strings.ToLower(strings.TrimSpace(d))
		if h := hostOf(d); h != "" && strings.Contains(d, "://") {
			d = h
		}
		d = strings.TrimPrefix(strings.TrimPrefix(d, "."), "www.")
		if i := strings.IndexByte(d, '/'); i >= 0 {
			d = d[:i]
		}
		if d != "" {
			out = append(out, d)
		}
	}
	return out
}

func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

// inDomains reports whether host is one of domains or a subdomain of one.
func inDomains(host string, domains []string) bool {
	for _, d := range domains {
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}

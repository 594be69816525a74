package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/robota-sdk/robota-go/internal/lazy"
)

// The search APIs WebSearch can be backed by (settings.json `webSearch.backend`).
const (
	BackendBrave   = "brave"
	BackendTavily  = "tavily"
	BackendSearXNG = "searxng"
)

// Default endpoints of the hosted APIs (a SearXNG instance has none: its URL is required).
const (
	DefaultBraveURL  = "https://api.search.brave.com/res/v1/web/search"
	DefaultTavilyURL = "https://api.tavily.com/search"
)

// DefaultMaxResults is how many results a backend is asked for when the settings say not.
const DefaultMaxResults = 10

// maxResponseBytes bounds what is read of a search API's answer.
const maxResponseBytes = 4 << 20

// APIConfig configures a search API backend. APIKey is a secret: it goes in the request's
// header (body for nothing), and no error message or log line carries it.
type APIConfig struct {
	Backend    string // BackendBrave, BackendTavily or BackendSearXNG
	URL        string // the endpoint; empty: the API's default (required for SearXNG)
	APIKey     string
	MaxResults int           // 0: DefaultMaxResults
	Timeout    time.Duration // 0: 30 s
	Client     *http.Client  // nil: a client with Timeout
}

// NewAPIBackend builds the backend cfg names.
func NewAPIBackend(cfg APIConfig) (SearchBackend, error) {
	if cfg.MaxResults <= 0 {
		cfg.MaxResults = DefaultMaxResults
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{Timeout: cfg.Timeout}
	}
	switch cfg.Backend {
	case BackendBrave:
		if cfg.URL == "" {
			cfg.URL = DefaultBraveURL
		}
		if cfg.APIKey == "" {
			return nil, errors.New("the brave backend needs an API key")
		}
		return brave{cfg}, nil
	case BackendTavily:
		if cfg.URL == "" {
			cfg.URL = DefaultTavilyURL
		}
		if cfg.APIKey == "" {
			return nil, errors.New("the tavily backend needs an API key")
		}
		return tavily{cfg}, nil
	case BackendSearXNG:
		if cfg.URL == "" {
			return nil, errors.New("the searxng backend needs the instance's url")
		}
		return searxng{cfg}, nil
	}
	return nil, fmt.Errorf("unknown web search backend %q (want %s, %s or %s)", cfg.Backend, BackendBrave, BackendTavily, BackendSearXNG)
}

// brave is the Brave Search API: GET {url}?q=&count= with the X-Subscription-Token header;
// results under web.results (title, url, description with <strong> highlights).
type brave struct{ cfg APIConfig }

func (b brave) Search(ctx context.Context, req SearchRequest) ([]SearchResult, error) {
	u, err := url.Parse(b.cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("brave: bad url: %w", err)
	}
	q := u.Query()
	q.Set("q", req.Query)
	q.Set("count", strconv.Itoa(min(b.cfg.MaxResults, 20))) // the API's maximum
	u.RawQuery = q.Encode()
	hr, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("brave: %w", err)
	}
	hr.Header.Set("Accept", "application/json")
	hr.Header.Set("X-Subscription-Token", b.cfg.APIKey)
	var body struct {
		Web struct {
			Results []struct {
				Title         string   `json:"title"`
				URL           string   `json:"url"`
				Description   string   `json:"description"`
				ExtraSnippets []string `json:"extra_snippets"`
			} `json:"results"`
		} `json:"web"`
	}
	if err := do(b.cfg.Client, hr, "brave", &body); err != nil {
		return nil, err
	}
	out := make([]SearchResult, 0, len(body.Web.Results))
	for _, r := range body.Web.Results {
		out = append(out, SearchResult{Title: plain(r.Title), URL: r.URL, Snippet: plain(r.Description)})
	}
	return out, nil
}

// tavily is the Tavily Search API: POST {url} with a JSON body and a bearer key; it
// filters by domain itself (include_domains, exclude_domains).
type tavily struct{ cfg APIConfig }

func (t tavily) Search(ctx context.Context, req SearchRequest) ([]SearchResult, error) {
	payload, err := json.Marshal(map[string]any{
		"query": req.Query, "max_results": min(t.cfg.MaxResults, 20), "search_depth": "basic",
		"include_domains": nonNil(req.AllowedDomains), "exclude_domains": nonNil(req.BlockedDomains),
	})
	if err != nil {
		return nil, fmt.Errorf("tavily: %w", err)
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, t.cfg.URL, bytes.NewReader(payload))
	if err != nil {
		return nil, fmt.Errorf("tavily: %w", err)
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/json")
	hr.Header.Set("Authorization", "Bearer "+t.cfg.APIKey)
	var body struct {
		Results []struct {
			Title   string `json:"title"`
			URL     string `json:"url"`
			Content string `json:"content"`
		} `json:"results"`
	}
	if err := do(t.cfg.Client, hr, "tavily", &body); err != nil {
		return nil, err
	}
	out := make([]SearchResult, 0, len(body.Results))
	for _, r := range body.Results {
		out = append(out, SearchResult{Title: r.Title, URL: r.URL, Snippet: r.Content})
	}
	return out, nil
}

// searxng is a SearXNG instance's search API: GET {url}/search?q=&format=json (the
// instance must list json under search.formats; it answers 403 otherwise).
type searxng struct{ cfg APIConfig }

func (s searxng) Search(ctx context.Context, req SearchRequest) ([]SearchResult, error) {
	u, err := url.Parse(s.cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("searxng: bad url: %w", err)
	}
	if !strings.HasSuffix(u.Path, "/search") {
		u.Path = strings.TrimSuffix(u.Path, "/") + "/search"
	}
	q := u.Query()
	q.Set("q", req.Query)
	q.Set("format", "json")
	u.RawQuery = q.Encode()
	hr, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("searxng: %w", err)
	}
	hr.Header.Set("Accept", "application/json")
	if s.cfg.APIKey != "" { // an instance behind a proxy that wants a token
		hr.Header.Set("Authorization", "Bearer "+s.cfg.APIKey)
	}
	var body struct {
		Results []struct {
			Title   string `json:"title"`
			URL     string `json:"url"`
			Content string `json:"content"`
		} `json:"results"`
	}
	if err := do(s.cfg.Client, hr, "searxng", &body); err != nil {
		if errors.Is(err, errForbidden) {
			return nil, fmt.Errorf("%w (does the instance allow the json format? add json to search.formats in its settings.yml)", err)
		}
		return nil, err
	}
	out := make([]SearchResult, 0, min(len(body.Results), s.cfg.MaxResults))
	for _, r := range body.Results {
		if len(out) == s.cfg.MaxResults { // SearXNG has no result count parameter
			break
		}
		out = append(out, SearchResult{Title: r.Title, URL: r.URL, Snippet: r.Content})
	}
	return out, nil
}

var errForbidden = errors.New("access refused")

// do sends hr and decodes a 2xx JSON answer into v. Errors name the backend, the status
// and the start of the answer, never the request's headers (the key is in one).
func do(c *http.Client, hr *http.Request, name string, v any) error {
	resp, err := c.Do(hr)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) { // its message repeats the URL, never a header
			err = ue.Err
		}
		return fmt.Errorf("%s: request to %s failed: %w", name, hr.URL.Host, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return fmt.Errorf("%s: reading the answer: %w", name, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		detail := strings.Join(strings.Fields(string(data)), " ")
		if len(detail) > 200 {
			detail = detail[:200] + "…"
		}
		err := fmt.Errorf("%s: %s answered %s", name, hr.URL.Host, resp.Status)
		switch resp.StatusCode {
		case http.StatusUnauthorized:
			err = fmt.Errorf("%w: the API key was refused (check webSearch.apiKey)", err)
		case http.StatusForbidden:
			err = fmt.Errorf("%w: %w", err, errForbidden)
		case http.StatusTooManyRequests:
			err = fmt.Errorf("%w: rate limited, try again later", err)
		}
		if detail != "" {
			err = fmt.Errorf("%w: %s", err, detail)
		}
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: the answer is not the expected JSON: %w", name, err)
	}
	return nil
}

// Compiled on first use, not at start-up (PERF-NOTES.md).
var tags = lazy.NewRegexp(`<[^>]*>`)

// plain drops HTML tags (Brave marks matches with <strong>) and decodes entities.
func plain(s string) string { return html.UnescapeString(tags.ReplaceAllString(s, "")) }

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

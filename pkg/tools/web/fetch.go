package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"

	"github.com/robota-sdk/robota-go/pkg/engine/llm"
	"github.com/robota-sdk/robota-go/pkg/tools"
	"github.com/robota-sdk/robota-go/pkg/tools/internal/toolkit"
	"github.com/robota-sdk/robota-go/pkg/tools/record"
)

// Defaults of WebFetch.
const (
	DefaultFetchTimeout = 30 * time.Second
	DefaultMaxBytes     = 10 << 20
	DefaultMaxChars     = 100_000
	maxRedirects        = 10
)

// FetchParams are the WebFetch tool's parameters.
type FetchParams struct {
	URL    string `json:"url" jsonschema:"The fully-formed http or https URL to fetch"`
	Prompt string `json:"prompt" jsonschema:"What to extract or answer from the fetched content"`
}

// Processor applies the prompt to fetched content (for example with a small, fast model).
type Processor interface {
	Process(ctx context.Context, prompt, url, markdown string) (string, error)
}

// FetchConfig configures WebFetch. Zero values take the defaults.
type FetchConfig struct {
	// Client performs the requests; nil means a client with Timeout. Its CheckRedirect is
	// replaced: WebFetch decides which redirects to follow.
	Client    *http.Client
	Timeout   time.Duration
	MaxBytes  int64
	MaxChars  int
	UserAgent string
	// Processor, when set, turns (prompt, content) into the answer; without one the content
	// is returned for the model to read with the prompt.
	Processor Processor
}

const fetchDescription = `Fetches content from a URL and returns it as Markdown (HTML is converted).
- Only http and https URLs; use a fully-formed URL.
- prompt says what to look for in the page.
- A redirect to a different host is reported, not followed: call WebFetch again with the redirect URL.
- A redirect from https to http is refused.
- Large pages are cut; the tool is read-only.`

// Fetch is the WebFetch tool.
type Fetch struct {
	*tools.Typed[FetchParams]
	cfg    FetchConfig
	client *http.Client
}

// NewFetch builds the WebFetch tool.
func NewFetch(cfg FetchConfig) (*Fetch, error) {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultFetchTimeout
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	if cfg.MaxChars <= 0 {
		cfg.MaxChars = DefaultMaxChars
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = "robota-go WebFetch"
	}
	client := &http.Client{Timeout: cfg.Timeout}
	if cfg.Client != nil {
		c := *cfg.Client
		client = &c
		if client.Timeout == 0 {
			client.Timeout = cfg.Timeout
		}
	}
	client.CheckRedirect = checkRedirect
	f := &Fetch{cfg: cfg, client: client}
	typed, err := tools.New("WebFetch", fetchDescription, f.run)
	if err != nil {
		return nil, err
	}
	f.Typed = typed
	return f, nil
}

// ConcurrencySafe reports that WebFetch only reads: the agent may run its calls alongside
// other read-only calls of the same message.
func (f *Fetch) ConcurrencySafe(json.RawMessage) bool { return true }

// Describe returns the call record: the URL.
func (f *Fetch) Describe(args json.RawMessage) record.Call {
	p, err := f.Decode(args)
	if err != nil {
		return record.Call{}
	}
	return record.Call{FirstArg: p.URL}
}

var (
	errTooManyRedirects = errors.New("too many redirects")
	errSchemeDowngrade  = errors.New("redirect from https to http")
)

// checkRedirect follows same-host redirects only; for another host it stops and hands the
// redirect response back, which run reports. A redirect to http after https was used is
// refused even on the same host: following it would send the request (and show its
// answer as if it came) over an unencrypted connection the caller never asked for.
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return errTooManyRedirects
	}
	if req.URL.Scheme == "http" {
		for _, prev := range via {
			if prev.URL.Scheme == "https" {
				return &downgradeError{from: prev.URL.String(), to: req.URL.String()}
			}
		}
	}
	if !sameHost(req.URL, via[0].URL) || (req.URL.Scheme != "http" && req.URL.Scheme != "https") {
		return http.ErrUseLastResponse
	}
	return nil
}

// sameHost compares host and port, treating "www.example.com" and "example.com" as one.
func sameHost(a, b *url.URL) bool {
	strip := func(u *url.URL) string { return strings.TrimPrefix(strings.ToLower(u.Host), "www.") }
	return strip(a) == strip(b)
}

func (f *Fetch) run(ctx context.Context, p FetchParams) llm.ToolResult {
	rec := record.Call{FirstArg: p.URL}
	u, err := url.Parse(strings.TrimSpace(p.URL))
	if err != nil || u.Scheme == "" || (u.Host == "" && (u.Scheme == "http" || u.Scheme == "https")) {
		return toolkit.Failure(rec, "invalid_url", fmt.Sprintf("Invalid URL %q: give a fully-formed http or https URL.", p.URL), nil)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return toolkit.Failure(rec, "unsupported_scheme", fmt.Sprintf("Unsupported URL scheme %q in %q: only http and https URLs can be fetched.", u.Scheme, p.URL), nil)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return toolkit.Failure(rec, "invalid_url", fmt.Sprintf("Invalid URL %q: %v", p.URL, err), nil)
	}
	req.Header.Set("User-Agent", f.cfg.UserAgent)
	req.Header.Set("Accept", "text/html, text/markdown, text/plain, application/json;q=0.9, */*;q=0.5")
	start := time.Now()
	resp, err := f.client.Do(req)
	if err != nil {
		return f.requestFailure(ctx, rec, p.URL, err)
	}
	defer resp.Body.Close()
	meta := map[string]any{"status": resp.StatusCode, "url": resp.Request.URL.String()}
	if isRedirect(resp.StatusCode) {
		return f.redirect(rec, u, resp, meta)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return toolkit.Failure(rec, "http_status", fmt.Sprintf("Fetching %s failed: HTTP %s.", resp.Request.URL, resp.Status), meta)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, f.cfg.MaxBytes+1))
	if err != nil {
		return f.requestFailure(ctx, rec, p.URL, err)
	}
	cut := int64(len(body)) > f.cfg.MaxBytes
	if cut {
		body = body[:f.cfg.MaxBytes]
	}
	meta["bytes"] = len(body)
	meta["durationMs"] = time.Since(start).Milliseconds()
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mediaType == "" {
		mediaType, _, _ = mime.ParseMediaType(http.DetectContentType(body))
	}
	meta["contentType"] = mediaType
	content, err := toText(mediaType, body, resp.Request.URL)
	if err != nil {
		return toolkit.Failure(rec, "unsupported_content", fmt.Sprintf("Cannot use the content of %s: %v.", resp.Request.URL, err), meta)
	}
	content, charsCut := toolkit.TruncateMiddle(content, f.cfg.MaxChars)
	var notes []string
	if cut {
		notes = append(notes, fmt.Sprintf("the response was cut at %d bytes", f.cfg.MaxBytes))
	}
	if charsCut {
		notes = append(notes, fmt.Sprintf("the content was cut to %d characters", f.cfg.MaxChars))
	}
	meta["truncated"] = cut || charsCut
	if f.cfg.Processor != nil {
		answer, err := f.cfg.Processor.Process(ctx, p.Prompt, resp.Request.URL.String(), content)
		if err != nil {
			return toolkit.Failure(rec, "processing_failed", fmt.Sprintf("Fetched %s but could not apply the prompt: %v", resp.Request.URL, err), meta)
		}
		return toolkit.Success(rec, answer, meta)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Content of %s (%s", resp.Request.URL, mediaType)
	for _, n := range notes {
		b.WriteString("; " + n)
	}
	fmt.Fprintf(&b, "). Use it to answer: %s\n\n%s", p.Prompt, content)
	return toolkit.Success(rec, b.String(), meta)
}

func isRedirect(code int) bool {
	switch code {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

func (f *Fetch) redirect(rec record.Call, original *url.URL, resp *http.Response, meta map[string]any) llm.ToolResult {
	loc, err := resp.Location()
	if err != nil {
		return toolkit.Failure(rec, "http_status", fmt.Sprintf("Fetching %s failed: HTTP %s without a usable Location header.", resp.Request.URL, resp.Status), meta)
	}
	meta["redirectUrl"] = loc.String()
	return toolkit.Success(rec, fmt.Sprintf(
		"REDIRECT DETECTED: the URL redirects to a different host, which was not followed.\n\nOriginal URL: %s\nRedirect URL: %s\nStatus: %s\n\nTo fetch the content, call WebFetch again with url: %s",
		original, loc, resp.Status, loc), meta)
}

// downgradeError is a refused redirect from an https URL to an http one.
type downgradeError struct{ from, to string }

func (e *downgradeError) Error() string {
	return errSchemeDowngrade.Error() + ": " + e.from + " -> " + e.to
}
func (e *downgradeError) Unwrap() error { return errSchemeDowngrade }

func (f *Fetch) requestFailure(ctx context.Context, rec record.Call, rawURL string, err error) llm.ToolResult {
	var ue *url.Error
	var down *downgradeError
	switch {
	case ctx.Err() != nil:
		return toolkit.Failure(rec, toolkit.CodeAborted, "Fetching "+rawURL+" was aborted.", nil)
	case errors.As(err, &down):
		return toolkit.Failure(rec, "insecure_redirect", fmt.Sprintf(
			"Fetching %s failed: %s redirects to %s, from https to plain http, and such a redirect is not followed. If the unencrypted page is wanted, call WebFetch with that URL.",
			rawURL, down.from, down.to), map[string]any{"redirectUrl": down.to})
	case errors.Is(err, errTooManyRedirects):
		return toolkit.Failure(rec, "too_many_redirects", fmt.Sprintf("Fetching %s failed: more than %d redirects.", rawURL, maxRedirects), nil)
	case errors.As(err, &ue) && ue.Timeout():
		return toolkit.Failure(rec, "timeout", fmt.Sprintf("Fetching %s timed out after %s.", rawURL, f.client.Timeout), nil)
	}
	return toolkit.Failure(rec, "fetch_failed", fmt.Sprintf("Fetching %s failed: %v", rawURL, err), nil)
}

// toText turns a response body into text: HTML becomes Markdown, text types pass through.
func toText(mediaType string, body []byte, base *url.URL) (string, error) {
	switch {
	case mediaType == "text/html" || mediaType == "application/xhtml+xml":
		md, err := htmltomarkdown.ConvertString(string(body), converter.WithDomain(base.Scheme+"://"+base.Host))
		if err != nil {
			return "", fmt.Errorf("converting HTML: %w", err)
		}
		return md, nil
	case strings.HasPrefix(mediaType, "text/"), mediaType == "application/json", strings.HasSuffix(mediaType, "+json"),
		mediaType == "application/xml", strings.HasSuffix(mediaType, "+xml"), mediaType == "application/javascript":
		return strings.ToValidUTF8(string(body), "\uFFFD"), nil
	}
	return "", fmt.Errorf("its content type %s is not text (%d bytes)", mediaType, len(body))
}

package hook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"

	"github.com/robota-sdk/robota-go/internal/lazy"
)

// HTTPExecutor runs `http` hooks: a request with the JSON input as body to the hook's
// URL, POST unless the hook's `method` says PUT or PATCH. A 2xx
// response is exit code 0 with the body as stdout (so it may carry JSON output);
// any other status is a non-blocking error, as in Claude Code (an HTTP hook blocks
// only through a JSON decision).
type HTTPExecutor struct {
	Client *http.Client
	// LookupEnv resolves $VAR in header values; nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
}

// NewHTTPExecutor returns an executor using http.DefaultClient.
func NewHTTPExecutor() *HTTPExecutor { return &HTTPExecutor{} }

// Compiled on first use, not at start-up: every robota run, --version included, pays for
// package initialisation (PERF-NOTES.md).
var envRef = lazy.NewRegexp(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)`)

// Execute posts one hook.
func (x *HTTPExecutor) Execute(ctx context.Context, h Definition, input []byte) (Response, error) {
	u, err := url.Parse(h.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Response{}, fmt.Errorf("%w: http hook url %s is not an http(s) URL", ErrHookFailed, safeURL(h.URL))
	}
	method, err := HTTPMethod(h)
	if err != nil {
		return Response{}, fmt.Errorf("%w: %w", ErrHookFailed, err)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), bytes.NewReader(input))
	if err != nil {
		return Response{}, fmt.Errorf("http hook %s: %w", safeURL(h.URL), withoutURL(err))
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range h.Headers {
		req.Header.Set(k, x.expand(v, h.AllowedEnvVars))
	}
	client := x.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return Response{}, fmt.Errorf("%w: http hook %s", ErrTimeout, safeURL(h.URL))
		}
		return Response{}, fmt.Errorf("%w: http hook %s: %w", ErrHookFailed, safeURL(h.URL), withoutURL(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxOutput))
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return Response{}, fmt.Errorf("%w: http hook %s", ErrTimeout, safeURL(h.URL))
		}
		return Response{}, fmt.Errorf("%w: http hook %s: reading body: %w", ErrHookFailed, safeURL(h.URL), withoutURL(err))
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return Response{ExitCode: 1, Stderr: fmt.Sprintf("HTTP %d from %s: %s", resp.StatusCode, safeURL(h.URL), body)}, nil
	}
	return Response{Stdout: string(body)}, nil
}

// withoutURL drops the *url.Error wrapper, whose message repeats the full URL (a
// webhook's path and query are often its credential).
func withoutURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// expand substitutes $VAR and ${VAR} for the variables the hook lists in
// allowedEnvVars; any other reference becomes empty, so a settings file cannot
// exfiltrate arbitrary secrets through a header.
func (x *HTTPExecutor) expand(v string, allowed []string) string {
	lookup := x.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	return envRef.ReplaceAllStringFunc(v, func(ref string) string {
		m := envRef.FindStringSubmatch(ref)
		name := m[1] + m[2]
		for _, a := range allowed {
			if a == name {
				val, _ := lookup(name)
				return val
			}
		}
		return ""
	})
}

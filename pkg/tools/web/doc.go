// Package web owns the WebFetch and WebSearch tools (Claude Code's names and parameters:
// url, prompt; query, allowed_domains, blocked_domains).
//
// Guarantees:
//   - WebFetch fetches only http and https URLs with a GET, a timeout (default 30 s) and a
//     size cap (default 10 MiB; the rest is cut with a note). HTML is converted to Markdown
//     (html-to-markdown/v2); other text types are returned as text; binary types are refused.
//   - Redirects within the same host are followed (at most 10); a redirect to another host
//     is reported with its target and not followed, so the caller (and the permission layer)
//     decides whether to fetch it. A redirect from https to http is refused, on any host,
//     before the http request is sent.
//   - WebSearch delegates to a SearchBackend port; with none configured it fails with a clear
//     "not available" message and does nothing else. Results are filtered by the allowed and
//     blocked domains even if the backend ignores them.
//   - Each result carries the call record (first argument: the URL or the query).
package web

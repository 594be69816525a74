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
//   - WebSearch delegates to a SearchBackend port; with none configured it fails with a
//     "not available" message that shows the settings.json `webSearch` lines to write, and
//     does nothing else. Results are filtered by the allowed and blocked domains even if the
//     backend ignores them.
//   - NewAPIBackend builds the search API backends: Brave Search (GET, key in
//     X-Subscription-Token), Tavily (POST JSON, bearer key; given the domain lists) and a
//     SearXNG instance (GET {url}/search?format=json; a 403 says to enable the json
//     format). The key travels in a header only; no error message carries it. An error
//     names the backend, the host, the HTTP status and the start of the answer.
//   - A backend implementing Answerer (provider-native search: a model that searched with
//     its provider's hosted tool) has its prose answer returned; Unavailable says why a
//     configured backend cannot search.
//   - Each result carries the call record (first argument: the URL or the query).
package web

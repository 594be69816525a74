// Package config loads robota's settings: the six settings files of the spec's
// *Settings Configuration* (user and project, `.robota/` and Claude Code's `.claude/`),
// validated, deep-merged, with `$ENV:NAME` references resolved and the active provider
// profile resolved.
//
// It owns the settings schema, the merge rules, the provenance of every value and the
// override API the CLI flags use. It does not evaluate permission rules, run hooks or
// construct providers: it hands their consumers plain data (rule text with its source
// and anchor root, hooks in Claude Code's JSON shape, a resolved provider profile).
//
// Guarantees:
//   - Layers merge lowest first (Layers lists them); objects merge key by key, a scalar or
//     an array from a higher layer replaces the lower one. Exceptions, per DESIGN.md
//     §Decisions 1: permissions.allow/ask/deny and the additional directories are unions
//     (layer order, then file order, duplicates dropped), and hook matcher groups of all
//     layers are kept, so a deny rule or a hook in any layer survives any other layer.
//   - Loader.Sources limits the files read by scope (user, project, local: --setting-sources);
//     Loader.Extra (--settings) is a layer above the six files and below Overrides, and is
//     not a project layer (the credential rule below does not guard it).
//   - Nothing reads the real home directory or process environment unless the caller asks
//     for it (NewLoader); Loader takes both as fields.
//   - Validation is strict: an unknown key is a warning naming the file and key path; a
//     wrong type or value, a profile without a type, or a currentProvider naming no profile
//     is an error naming the file and key path; malformed JSON is an error naming the
//     file, line and column. Load reports every problem of every file at once.
//   - `$ENV:NAME` is substituted after the merge, in `provider` and `providers` values only
//     (whole-string references; provider options are substituted but never interpreted).
//   - Credentials from the environment never follow an endpoint a repository chose: when a
//     project or local file sets a profile's baseURL, no `$ENV:` reference of that profile
//     is substituted, an apiKey or options.headers value from another file is dropped, and
//     the profile is marked NoEnvCredentials so its consumer reads no default key variable
//     either; only a key written literally in that file remains. Each withheld value of the
//     active profile is a warning naming its file and key path.
//   - `webSearch` (Settings.WebSearch, websearch.go) chooses what backs the WebSearch tool:
//     backend native (the provider's hosted search), brave, tavily or searxng, with apiKey
//     (`$ENV:NAME` substituted here too), url and maxResults. A bad backend, url or
//     maxResults, brave or tavily without apiKey, searxng without url are errors naming the
//     file and key. An unset key variable is a warning and leaves the backend Unavailable
//     with the reason. The credential rule holds: when a project or local file sets
//     webSearch.url, a `$ENV:` key or one from another file is not used (a warning).
//     Unset, the session uses native when the provider has hosted search (Anthropic), as
//     Claude Code searches out of the box, and otherwise says how to configure one.
//
// Tables and regular expressions are built on first use (internal/lazy), not in a
// package init: robota pays every init on every command (issue 29).
package config

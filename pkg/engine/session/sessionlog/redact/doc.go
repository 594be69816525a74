// Package redact removes secrets from JSON trees and free text before they are written to
// disk (session logs and session records).
//
// What it redacts:
//   - the value of every object member whose key names a secret (apiKey, authorization,
//     accessToken, refreshToken, secret, password, xApiKey, token, … — see IsSecretKey),
//     at any depth; empty strings, null and booleans are kept because they hide nothing;
//   - API-key-shaped substrings of any string (sk-ant-…, sk-…, Bearer tokens, GitHub and
//     Slack tokens, Google API keys): only the key text is replaced, the rest of the string
//     stays readable;
//   - "key": "value" and KEY=value pairs inside free text whose key names a secret;
//   - strings that hold a JSON document are parsed and redacted recursively.
//
// For text that is still arriving (a streamed answer), SettledPrefix tells how much of it
// no continuation can make part of a secret, so that part can be written before the rest.
//
// Guarantees: the input is never modified (what changes is copied; objects and arrays
// with nothing to redact are shared with the input, not copied); the output of Value is
// again a JSON tree; redaction is idempotent; Placeholder itself never matches a pattern.
// Members of a JSON Schema "properties" object are parameter definitions, not secrets, so a
// tool schema with a "token" parameter survives intact.
package redact

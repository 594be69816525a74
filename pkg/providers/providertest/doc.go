// Package providertest is the conformance suite every llm.Provider passes: streaming text,
// thinking, one tool call, parallel tool calls, usage, abort mid-stream, a caller's idle
// timeout, errors before and during the stream, and error mapping.
//
// A provider package supplies a Harness that turns provider-neutral Scenarios into its
// own fixture (an SSE transcript served on loopback for the HTTP providers, an in-memory
// script for the script provider) and calls Run from a test:
//
//	func TestConformance(t *testing.T) { providertest.Run(t, harness) }
//
// Guarantees: the suite asserts only behaviour the llm.Provider contract promises, so a
// provider that passes it can be swapped for any other under the execution loop.
package providertest

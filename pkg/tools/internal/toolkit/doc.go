// Package toolkit holds small helpers the built-in tools share: result constructors that
// attach the call record and an error code, schema refinements, and text truncation.
package toolkit

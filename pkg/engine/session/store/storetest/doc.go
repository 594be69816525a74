// Package storetest is the conformance suite every store.Store implementation must pass:
// call Run from the implementation's tests with a constructor for empty stores. It also
// provides the fixtures the suite uses (a settable Clock, SampleRecord, InvalidIDs) so
// backend-specific tests can share them.
package storetest

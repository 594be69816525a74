// Package storetest is the conformance suite every store.Store implementation must pass:
// call Run from the implementation's tests with a Harness (a constructor for empty stores,
// and access to the bytes a store keeps for a session, so the suite can tear them and
// plant records of the earlier whole-record format). It covers saves, per-round appends
// that never rewrite, header changes, conflicts, resets (compaction), torn tails at every
// byte, the old format, forks, listings that read no message, and concurrent use. It also
// provides the fixtures the suite uses (a settable Clock, SampleRecord, Round,
// LegacyRecord, InvalidIDs) so backend-specific tests can share them.
package storetest

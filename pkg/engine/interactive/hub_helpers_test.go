package interactive

import (
	"testing"
	"time"
)

// fixedNow is the clock of the hub tests.
func fixedNow() time.Time { return time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC) }

// checkSeq fails unless sequence numbers strictly increase.
func checkSeq(t *testing.T, events []Event) {
	t.Helper()
	for i := 1; i < len(events); i++ {
		if events[i].Seq <= events[i-1].Seq {
			t.Fatalf("sequence not increasing at %d: %d after %d (%s after %s)", i, events[i].Seq, events[i-1].Seq, events[i].Type, events[i-1].Type)
		}
	}
}

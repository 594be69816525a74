package sentinel

import (
	"errors"
	"fmt"
	"testing"
)

var (
	aborted            = New("session: aborted")
	errAborted   error = &aborted
	reExported   error = &aborted
	otherSameMsg       = New("session: aborted")
)

func TestAReExportIsTheSameError(t *testing.T) {
	wrapped := fmt.Errorf("run: %w", errAborted)
	if !errors.Is(wrapped, reExported) || reExported != errAborted {
		t.Fatal("a re-export through the value's address is not the same error")
	}
	if errors.Is(wrapped, &otherSameMsg) {
		t.Fatal("an error with the same message matched: sentinels must be told apart by identity")
	}
	if errAborted.Error() != "session: aborted" {
		t.Fatalf("message %q", errAborted.Error())
	}
}

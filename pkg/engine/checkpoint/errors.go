package checkpoint

import "github.com/robota-sdk/robota-go/internal/sentinel"

// ErrUnknown: a rewind names no checkpoint of this session.
var ErrUnknown error = &Unknown

// Unknown is the value ErrUnknown points to, so that a package re-exporting it does it
// without init code (internal/sentinel). Compare errors with ErrUnknown.
var Unknown = sentinel.New("no such checkpoint")

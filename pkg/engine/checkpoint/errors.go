package checkpoint

import "errors"

// ErrUnknown: a rewind names no checkpoint of this session.
var ErrUnknown = errors.New("no such checkpoint")

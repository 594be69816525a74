package commands

import "errors"

// ErrUnknownCommand: no source has a command of that name.
var ErrUnknownCommand = errors.New("unknown command")

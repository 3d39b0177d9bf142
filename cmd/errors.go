package cmd

import (
	"errors"
	"fmt"
)

// Exit codes, in one place.
const (
	ExitOK      = 0
	ExitFailure = 1 // check: drift or a broken policy
	ExitError   = 2 // usage, configuration, or (with --strict) input
)

// usageError is a bad flag or argument: exit 2.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usageErrorf(format string, a ...any) error { return &usageError{fmt.Errorf(format, a...)} }

// failError means the command ran and reports a failure (exit 1); its
// message has been printed already.
type failError struct{ msg string }

func (e *failError) Error() string { return e.msg }

// exitCode maps an error to the process exit code.
func exitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var f *failError
	if errors.As(err, &f) {
		return ExitFailure
	}
	var m *matchError // watch's --exit-on
	if errors.As(err, &m) {
		return ExitMatch
	}
	return ExitError
}

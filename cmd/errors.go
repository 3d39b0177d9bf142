package cmd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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

// linesError is an error of several lines, each a message of its own on
// stderr (which keeps a message on one line: report.StderrWriter). Values
// in a line are escaped (report.Term) where the line is made.
type linesError struct{ lines []string }

func (e *linesError) Error() string { return strings.Join(e.lines, "\n") }

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

// pathHint adds to a missing path's error the path meant when it exists
// with dashes for the colons: reports print an episode's id as
// 2025-11-04T09:35:24, ZorkGPT names its directory 2025-11-04T09-35-24,
// and users paste the one for the other.
func pathHint(err error) error {
	var pe *fs.PathError
	if !errors.As(err, &pe) || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(pe.Path, ":") {
		return err
	}
	vol := filepath.VolumeName(pe.Path)
	guess := vol + strings.ReplaceAll(pe.Path[len(vol):], ":", "-")
	if _, serr := os.Stat(guess); serr != nil {
		return err
	}
	return fmt.Errorf("%w; did you mean %s?", err, shellQuote(guess))
}

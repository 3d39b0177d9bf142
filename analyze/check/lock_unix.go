//go:build unix

package check

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// LockedError is returned by an update when another one holds the lock
// of the baseline's directory.
type LockedError struct{ Dir string }

func (e *LockedError) Error() string {
	return "another loopbreak check --update is writing a baseline in " + e.Dir + ": try again when it has finished"
}

// lockBaseline takes an exclusive flock on the baseline's directory for
// the whole update, then removes temporary baselines no live writer owns.
// A directory lock leaves no lock file behind, and the kernel releases it
// when the process dies however it dies (kill -9 included).
func lockBaseline(file string) (unlock func(), err error) {
	dir := filepath.Dir(file)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(d.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		d.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &LockedError{dir}
		}
		return nil, fmt.Errorf("locking %s: %w", dir, err)
	}
	removeStaleTemps(dir, 0)
	return func() { d.Close() }, nil // closing the descriptor releases the lock
}

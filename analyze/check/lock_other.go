//go:build !unix

package check

import (
	"os"
	"path/filepath"
	"time"
)

// lockBaseline, without flock, only removes stale temporary baselines
// older than a minute (a live writer renames its own within seconds).
func lockBaseline(file string) (func(), error) {
	removeStaleTempsOlderThanMinute(filepath.Dir(file))
	return func() {}, nil
}

func removeStaleTempsOlderThanMinute(dir string) {
	olds, _ := filepath.Glob(filepath.Join(dir, TempPattern))
	for _, f := range olds {
		if st, err := os.Stat(f); err == nil && time.Since(st.ModTime()) > time.Minute {
			os.Remove(f)
		}
	}
}

//go:build !unix

package outfile

import (
	"os"
	"time"
)

// canUnlinkOpen: Windows cannot remove an open file.
const canUnlinkOpen = false

// lock: no flock here; RemoveStale goes by age alone.
func lock(*os.File) {}

// removeIfUnlocked removes name if untouched for a day: without a lock, a
// writer is presumed gone only then.
func removeIfUnlocked(name string, st os.FileInfo) {
	if time.Since(st.ModTime()) >= 24*time.Hour {
		os.Remove(name)
	}
}

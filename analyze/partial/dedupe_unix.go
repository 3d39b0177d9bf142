//go:build unix

package partial

import (
	"os"
	"syscall"
)

// fileKey is a file's identity: what os.SameFile compares on Unix.
type fileKey struct{ dev, ino uint64 }

func keyOf(st os.FileInfo) (fileKey, bool) {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return fileKey{}, false
	}
	return fileKey{dev: uint64(s.Dev), ino: uint64(s.Ino)}, true
}

//go:build unix

package outfile

import (
	"os"
	"syscall"
)

// canUnlinkOpen: a file open here can lose its name and stay readable.
const canUnlinkOpen = true

// lock takes an exclusive flock on a temporary file for as long as it is
// open: the kernel drops it when its writer dies, however it dies.
func lock(f *os.File) {
	syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}

// removeIfUnlocked removes name unless a live writer holds its lock.
func removeIfUnlocked(name string, _ os.FileInfo) {
	f, err := os.Open(name)
	if err != nil {
		return
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return // its writer is alive
	}
	os.Remove(name)
}

//go:build unix

package cmd

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user + system) the process has used: on a
// shared machine a benchmark's wall time counts the waits for a core.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

//go:build unix

package replaytest

import (
	"syscall"
	"time"
)

// ProcessCPU is the CPU time (user + system) the process has used, for
// the benchmarks of every package: on a shared machine a benchmark's wall
// time counts the waits for a core.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

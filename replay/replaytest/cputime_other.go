//go:build !unix

package replaytest

import "time"

// ProcessCPU is 0 where getrusage is not there: benchmarks report no
// CPU figure.
func ProcessCPU() time.Duration { return 0 }

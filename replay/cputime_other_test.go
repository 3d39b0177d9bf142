//go:build !unix

package replay

import "time"

func processCPU() time.Duration { return 0 }

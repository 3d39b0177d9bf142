package main

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// gcPercent reads GOGC without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// waitGC collects until GOGC satisfies ok (the finalizer hook runs on its
// own goroutine after a collection), failing after a generous deadline.
func waitGC(t *testing.T, ok func(int) bool, what string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		runtime.GC()
		if ok(gcPercent()) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("GOGC = %d: %s", gcPercent(), what)
}

// TestTuneGC: a small live heap gets headroom above the default; a live
// heap beyond gcHeadroom gets the default back.
func TestTuneGC(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetGCPercent(gcPercent())
	tuneGC()
	waitGC(t, func(p int) bool { return p > 100 }, "want more than 100 while the live heap is small")
	big := make([]byte, 2*gcHeadroom)
	for i := range big {
		big[i] = byte(i)
	}
	waitGC(t, func(p int) bool { return p == 100 }, "want 100 once the live heap passes gcHeadroom")
	runtime.KeepAlive(big)
}

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

// memLimit reads the memory limit without changing it.
func memLimit() int64 { return debug.SetMemoryLimit(-1) }

// TestTuneGC: a small live heap gets headroom above the default under
// the soft limit; a live heap beyond gcHeadroom gets the default back,
// and a limit of half itself above it.
func TestTuneGC(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetGCPercent(gcPercent())
	defer debug.SetMemoryLimit(memLimit())
	tuneGC()
	waitGC(t, func(p int) bool { return p > 100 && memLimit() == gcSoftLimit }, "want more than 100 and the soft limit while the live heap is small")
	big := make([]byte, 2*gcHeadroom)
	for i := range big {
		big[i] = byte(i)
	}
	waitGC(t, func(p int) bool { return p == 100 && memLimit() >= int64(len(big))*3/2 },
		"want 100 and a limit of half the live heap above it once it passes gcHeadroom")
	runtime.KeepAlive(big)
}

// TestGCPolicy: GOGC gives gcHeadroom past a small live heap, the default
// past gcHeadroom; the soft limit is gcSoftLimit until the live heap
// and half of it pass it.
func TestGCPolicy(t *testing.T) {
	for _, c := range []struct {
		live  uint64
		pct   int
		limit int64
	}{
		{0, 100, gcSoftLimit},
		{1 << 20, 1000, gcSoftLimit}, // headroom capped at 10x
		{8 << 20, 400, gcSoftLimit},  // 32 MB past 8
		{20 << 20, 160, gcSoftLimit}, // the soft limit binds first
		{22 << 20, 145, gcSoftLimit}, // under the limit
		{30 << 20, 106, 45 << 20},    // half the live heap above it
		{gcHeadroom, 100, 48 << 20},  // the default GOGC
		{1 << 30, 100, 3 << 29},      // never below 1.5x the live heap
	} {
		if p, l := gcPercentFor(c.live), gcLimitFor(c.live); p != c.pct || l != c.limit {
			t.Errorf("live %d: GOGC %d, limit %d; want %d, %d", c.live, p, l, c.pct, c.limit)
		}
	}
}

// TestGCLimitLive: a live heap under gcSoftLimit raises the limit past
// twice gcSoftLimit/2 only once the collection after confirms it (a mark
// descheduled on a busy machine counts what was allocated meanwhile); a
// fall counts at once, and so does a live heap of gcSoftLimit or more.
func TestGCLimitLive(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct{ live, prev, want uint64 }{
		{10 * mib, 0, 10 * mib},              // under the floor's half: as measured
		{30 * mib, 20 * mib, 22 * mib},       // a rise past 22 MiB: not yet
		{30 * mib, 30 * mib, 30 * mib},       // confirmed
		{32 * mib, 30 * mib, 30 * mib},       // still rising: the lower of the two
		{19 * mib, 30 * mib, 19 * mib},       // a fall: at once
		{gcSoftLimit, 20 * mib, gcSoftLimit}, // a large live heap: at once
		{100 * mib, 60 * mib, 100 * mib},     // growing: at once
	} {
		if got := gcLimitLive(c.live, c.prev); got != c.want {
			t.Errorf("gcLimitLive(%d MiB, %d MiB) = %d MiB, want %d", c.live/mib, c.prev/mib, got/mib, c.want/mib)
		}
	}
	// The spike of the doc comment: the limit stays at the floor.
	if l := gcLimitFor(gcLimitLive(30*mib, 20*mib)); l != gcSoftLimit {
		t.Errorf("limit after a spike from 20 to 30 MiB: %d MiB, want %d", l/mib, gcSoftLimit/mib)
	}
}

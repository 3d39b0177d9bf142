package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// gcHeadroom is how far the heap may grow past its live bytes before the
// next collection, at least. Go's default collects when the heap doubles:
// while loopbreak's live heap is a few MB (a corpus streams through a
// handful of episodes at a time), that is a collection every few MB read,
// each scanning and faulting memory in again; measured on the default
// bench corpus it is 5–15% of analyze's CPU. Once the live heap is large
// (an episode of millions of turns) the default doubling applies
// unchanged.
const gcHeadroom = 32 << 20

// gcSoftLimit caps the heap of a run whose live heap is a few tens of MB
// (agents' sessions of 10 MB, one read on each CPU): the headroom alone
// let a live heap of 25 MB grow to 57 before a collection, and the memory
// freed then stay mapped, 60–117 MB of peak RSS where issue 19 asks for
// 64. A soft memory limit (debug.SetMemoryLimit) brings the collection
// forward and has the runtime return what it frees; past gcSoftLimit it
// is half the live heap above it (gcLimitFor), never continuously. On the agents' corpora
// (AGENTS=1 .ci/bench, loaded machine) the limit alone took peak RSS
// from 60–97 MB to 50–72; with what the readers and analyze now let go
// (docs/performance.md), 50–59 MB where main took 59–100, at 0–10% more
// CPU, the collector running sooner.
const gcSoftLimit = 44 << 20

// gcPercentFor is the GOGC that gives a live heap of live bytes
// gcHeadroom, and the default past it.
func gcPercentFor(live uint64) int {
	if live > 0 && live < gcHeadroom {
		return int(min(gcHeadroom*100/live, 1000))
	}
	return 100
}

// gcLimitFor is the soft memory limit for a live heap of live bytes:
// half of it above it. Go's default (twice the live heap) let one steps
// session of 150 MB peak at 71 MB of RSS and one of 200 MB at 88, its
// turn table (42 MB live) free to double before a collection; at half
// of it, 58 and 71 MB, with twice the collections (10 to 23, a few ms of
// CPU each: the turn table holds no pointers to mark) and the same CPU
// within noise, also on a ZorkGPT episode of 1,000,000 turns (172 to
// 159 MB). A quarter took 200 MB to 63 MB but collected 105 times, 25%
// more CPU.
func gcLimitFor(live uint64) int64 { return int64(max(gcSoftLimit, live+live/2)) }

// gcLimitLive is the live heap the soft limit is set for after a
// collection that measured live bytes, the one before it prev: under
// gcSoftLimit, a rise past gcSoftLimit/2 counts once a second collection
// confirms it. A collection's live bytes count what was allocated while
// it marked, and on a busy machine a mark descheduled for 40-60 ms
// measured a steps corpus's 20 MiB as 30 (gctrace: 32->40->30 MB, the
// next collection 19 again): twice that raised the limit to 60 MiB, and
// such a run (one in 10-20 there) peaked at 70-74 MB of RSS where the
// others stayed at 55-61. A large live heap (gcSoftLimit and up) counts
// at once: growing past it, a lag would collect it more often than Go's
// default.
func gcLimitLive(live, prev uint64) uint64 {
	if live >= gcSoftLimit {
		return live
	}
	return min(live, max(prev, gcSoftLimit/2))
}

// tuneGC sets GOGC and the soft memory limit after each collection
// (gcPercentFor, gcLimitFor of gcLimitLive), unless GOGC or GOMEMLIMIT
// is set: the user's own setting wins.
func tuneGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	last, lastLimit := 100, int64(0)
	var prevLive uint64
	var adjust func()
	arm := func() {
		// A finalizer runs once per collection that frees its object:
		// re-armed each time, it is a hook after every GC.
		s := new(gcSentinel)
		runtime.SetFinalizer(s, func(*gcSentinel) { adjust() })
	}
	adjust = func() {
		metrics.Read(sample)
		live := sample[0].Value.Uint64()
		if pct := gcPercentFor(live); pct < last*9/10 || pct > last*11/10 {
			debug.SetGCPercent(pct)
			last = pct
		}
		limit := gcLimitFor(gcLimitLive(live, prevLive))
		prevLive = live
		if limit != lastLimit {
			debug.SetMemoryLimit(limit)
			lastLimit = limit
		}
		arm()
	}
	debug.SetGCPercent(1000) // until the first collection measures the live heap
	last = 1000
	debug.SetMemoryLimit(gcSoftLimit)
	lastLimit = gcSoftLimit
	arm()
}

// gcSentinel is large enough to get an allocation of its own (the tiny
// allocator batches smaller pointer-free objects, delaying finalizers).
type gcSentinel struct{ _ [32]byte }

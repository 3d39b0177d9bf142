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
// bench corpus it is 5–15% of analyze's CPU. A floor of 32 MB keeps peak
// memory in tens of MB, and once the live heap is large (an episode of
// millions of turns) the default doubling applies unchanged.
const gcHeadroom = 32 << 20

// tuneGC sets GOGC after each collection so the next one comes no sooner
// than gcHeadroom past the live heap, unless GOGC or GOMEMLIMIT is set:
// the user's own setting wins.
func tuneGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	last := 100
	var adjust func()
	arm := func() {
		// A finalizer runs once per collection that frees its object:
		// re-armed each time, it is a hook after every GC.
		s := new(gcSentinel)
		runtime.SetFinalizer(s, func(*gcSentinel) { adjust() })
	}
	adjust = func() {
		metrics.Read(sample)
		pct := 100
		if live := sample[0].Value.Uint64(); live > 0 && live < gcHeadroom {
			pct = int(min(gcHeadroom*100/live, 1000))
		}
		if pct < last*9/10 || pct > last*11/10 {
			debug.SetGCPercent(pct)
			last = pct
		}
		arm()
	}
	debug.SetGCPercent(1000) // until the first collection measures the live heap
	last = 1000
	arm()
}

// gcSentinel is large enough to get an allocation of its own (the tiny
// allocator batches smaller pointer-free objects, delaying finalizers).
type gcSentinel struct{ _ [32]byte }

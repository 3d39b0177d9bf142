package rules

import (
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules/detect"
)

// Direction is exported to the external tests only.
var Direction = direction

// StepOf is turn t as the detectors' Step.
var StepOf = stepOf

// MakeStepOf writes turn t as the detectors' Step into s.
var MakeStepOf = makeStepOf

// Bytes is about the memory the list holds: its packed firings and
// strings (what TestFiringListBlocks bounds).
func (l *FiringList) Bytes() int {
	n := 16*cap(l.strs) + cap(l.cur)
	for _, b := range l.blocks {
		n += cap(b)
	}
	for _, s := range l.strs {
		n += len(s) + 48 // and its entry in ids
	}
	return n
}

// FoldFollowers sets whether Envs skip a detector's checks on the turns
// they report nothing, and returns the setting it replaced.
func FoldFollowers(on bool) (was bool) {
	was, foldFollowers = foldFollowers, on
	return was
}

// V1Slab sets how many events the V1 engine allocates at once (0: one
// allocation each), and returns the setting it replaced.
func V1Slab(n int) (was int) {
	was, v1Slab = v1Slab, n
	return was
}

// V1EventOf is the V1 engine's event for ev of ep (a new engine's: its
// slot is new), as the detector is handed it.
func V1EventOf(ep *replay.Episode, ev *replay.OpenHandsV1Event) detect.OpenHandsV1Event {
	var e openHandsV1Engine
	return *e.event(ep, ev)
}

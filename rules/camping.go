package rules

import (
	"sync"

	"github.com/loopbreak/loopbreak/replay"
)

// Keys of camping.
var (
	campingThreshold     = unread(intParam("camping_threshold", 5, "visits within the window that mean camping", bound(1), nil), liveWithoutDesign)
	campingWindow        = unread(intParam("camping_window", 10, "recent locations examined", bound(1), nil), liveWithoutDesign)
	campingReturnPenalty = unread(floatParam("camping_return_penalty", -0.6, "added to the confidence of an action returning to the camped location", bound(-1), bound(0)), liveWithoutDesign)
)

// CampingDetection is the kind of camping.
var CampingDetection = &Kind{Name: "detection", Doc: "a location fills the window", Fields: []string{"location", "visits"}}

// Camping is RULES.md section 5: repeated returns to one location.
var Camping = &Rule{
	Name:    "camping",
	Origin:  OriginDesign,
	Title:   "one location filling the recent window",
	Section: "docs/rules.md#camping",
	Doc: "Over the last camping_window turn-start locations (at least camping_threshold of them), counts " +
		"each location; when the most frequent reaches camping_threshold the agent is camping there (on a " +
		"tie, the location that appears first in the window). Runs with enable_loop_detection and feeds " +
		"score_adjustment. A design proposal: ZorkGPT never shipped it.",
	Params:  []*Param{campingThreshold.Param, campingWindow.Param, campingReturnPenalty.Param},
	Kinds:   []*Kind{CampingDetection},
	Enabled: enableLoopDetection.Get,
	Reads:   []*Param{enableLoopDetection.Param, campingThreshold.Param, campingWindow.Param},
	New: func(c *Config, ep *replay.Episode) Stepper {
		keys, syms := ep.StartKeys()
		// The window is the last camping_window of the 20 locations kept.
		w := min(campingWindow.Get(c), historyLen)
		s, ok := freeCampings.Get()
		if !ok {
			s = new(campingState)
		}
		mem := s.win.mem
		*s = campingState{threshold: campingThreshold.Get(c), keys: keys, syms: syms}
		if sh, ok := shared.Load(ep); ok {
			s.trace = sh.(*sharedEpisode).camping(ep, w, keys, len(syms))
			s.win.mem = mem
		} else {
			s.win = reuseModeWindow(mem, w, len(syms))
		}
		return s
	},
}

// campingState publishes this turn's detection to score_adjustment.
type campingState struct {
	threshold int

	// Locations are compared as the episode's start keys, counted as the
	// window slides (once per turn: a sweep's configurations read one
	// trace per window length instead, below).
	keys []int32      // by Sym (replay.Episode.StartKeys)
	syms []replay.Sym // by key
	win  modeWindow   // keys of the last known start locations

	// trace, when the episode is shared (Share), is the window counted
	// once for every configuration with the same window; turn counts the
	// Steps.
	trace *campingTrace
	turn  int

	detected bool
	location replay.Sym
	visits   int
}

// freeCampings holds released steppers, their windows' memory, for the
// next episode's (a directory of small episodes made both an episode).
var freeCampings = make(replay.FreeList[*campingState], 16)

// release keeps c for the next episode, unless its window is large (an
// episode of many locations).
func (c *campingState) release() {
	mem := c.win.mem
	*c = campingState{}
	if cap(mem) <= maxReusedWindow {
		c.win.mem = mem
		freeCampings.Put(c)
	}
}

// maxReusedWindow bounds the window memory a released stepper keeps.
const maxReusedWindow = 1 << 14

func (c *campingState) Step(t *replay.Turn, env *Env) {
	c.detected = false
	var n, best, mode int32
	if c.trace != nil {
		i := c.turn
		c.turn++
		n, best = int32(c.trace.n[i]), int32(c.trace.best[i])
		if n == 0 || int(n) < c.threshold || int(best) < c.threshold {
			return // n == 0: unknown location, not recorded
		}
		mode = c.trace.mode[i]
	} else {
		k := c.keys[t.LocStart]
		if k == 0 {
			return // unknown location: not recorded
		}
		c.win.push(k, k)
		if c.win.len() < c.threshold || int(c.win.best) < c.threshold {
			return
		}
		// On a tie, the location that appears first in the window.
		best, mode = c.win.best, c.win.mode()
	}
	c.detected, c.location, c.visits = true, c.syms[mode], int(best)
	env.Report(&Firing{Turn: t.N, Rule: Camping, Kind: CampingDetection, Location: env.Episode.Str(c.location), Visits: c.visits})
}

// campingTrace is camping's window over a shared episode, per turn: how
// many locations it holds (0 on a turn whose location is unknown, which
// is not recorded), the highest count and the mode (the key counted best
// times that appears first). Every configuration of a sweep with the same
// window reads it instead of counting the window again: camping_threshold
// only compares with it. Counts fit a byte (the window holds at most
// historyLen locations): 6 bytes a turn and window length, at most 20
// lengths.
type campingTrace struct {
	once    sync.Once
	n, best []uint8
	mode    []int32
}

// The trace's counts are bytes: a historyLen past 255 fails to compile.
const _ = uint8(historyLen)

// camping returns the trace of camping's window of w locations over ep.
func (sh *sharedEpisode) camping(ep *replay.Episode, w int, keys []int32, distinct int) *campingTrace {
	sh.mu.Lock()
	if sh.camp == nil {
		sh.camp = map[int]*campingTrace{}
	}
	tr := sh.camp[w]
	if tr == nil {
		tr = &campingTrace{}
		sh.camp[w] = tr
	}
	sh.mu.Unlock()
	tr.once.Do(func() {
		tr.n, tr.best, tr.mode = make([]uint8, len(ep.Turns)), make([]uint8, len(ep.Turns)), make([]int32, len(ep.Turns))
		win := newModeWindow(w, distinct)
		for i := range ep.Turns {
			k := keys[ep.Turns[i].LocStart]
			if k == 0 {
				continue
			}
			win.push(k, k)
			tr.n[i], tr.best[i] = uint8(win.len()), uint8(win.best)
			// Every configuration whose threshold the window reaches asks
			// for the mode: once here for all of them.
			tr.mode[i] = win.mode()
		}
	})
	return tr
}

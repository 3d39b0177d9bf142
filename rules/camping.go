package rules

import (
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
	New: func(c *Config, ep *replay.Episode) Stepper {
		keys, syms := ep.StartKeys()
		return &campingState{threshold: campingThreshold.Get(c), window: campingWindow.Get(c),
			keys: keys, syms: syms, counts: make([]int32, len(syms)), hist: history[int32]{max: historyLen}}
	},
}

// campingState publishes this turn's detection to score_adjustment.
type campingState struct {
	threshold, window int

	// Locations are compared as the episode's start keys: sweeps replay
	// camping once per configuration, so this is their hottest loop.
	keys   []int32        // by Sym (replay.Episode.StartKeys)
	syms   []replay.Sym   // by key
	counts []int32        // scratch, by key
	hist   history[int32] // keys of the last 20 known start locations

	detected bool
	location replay.Sym
	visits   int
}

func (c *campingState) Step(t *replay.Turn, env *Env) {
	c.detected = false
	k := c.keys[t.LocStart]
	if k == 0 {
		return // unknown location: not recorded
	}
	c.hist.push(k)
	w := min(c.window, len(c.hist.buf))
	if w < c.threshold {
		return
	}
	win := c.hist.buf[len(c.hist.buf)-w:]
	bestN := int32(0)
	for _, k := range win {
		c.counts[k]++
		bestN = max(bestN, c.counts[k])
	}
	if int(bestN) >= c.threshold {
		// On a tie, the location that appears first in the window.
		for _, k := range win {
			if c.counts[k] == bestN {
				c.detected, c.location, c.visits = true, c.syms[k], int(bestN)
				break
			}
		}
	}
	for _, k := range win {
		c.counts[k] = 0
	}
	if c.detected {
		env.Report(Firing{Turn: t.N, Rule: Camping, Kind: CampingDetection, Location: env.Episode.Str(c.location), Visits: c.visits})
	}
}

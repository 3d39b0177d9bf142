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
	Reads:   []*Param{enableLoopDetection.Param, campingThreshold.Param, campingWindow.Param},
	New: func(c *Config, ep *replay.Episode) Stepper {
		keys, syms := ep.StartKeys()
		// The window is the last camping_window of the 20 locations kept.
		return &campingState{threshold: campingThreshold.Get(c), keys: keys, syms: syms,
			win: newModeWindow(min(campingWindow.Get(c), historyLen), len(syms))}
	},
}

// campingState publishes this turn's detection to score_adjustment.
type campingState struct {
	threshold int

	// Locations are compared as the episode's start keys, counted as the
	// window slides: sweeps replay camping once per configuration, so
	// this is their hottest loop.
	keys []int32      // by Sym (replay.Episode.StartKeys)
	syms []replay.Sym // by key
	win  modeWindow   // keys of the last known start locations

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
	c.win.push(k, k)
	if c.win.len() < c.threshold || int(c.win.best) < c.threshold {
		return
	}
	// On a tie, the location that appears first in the window.
	c.detected, c.location, c.visits = true, c.syms[c.win.mode()], int(c.win.best)
	env.Report(Firing{Turn: t.N, Rule: Camping, Kind: CampingDetection, Location: env.Episode.Str(c.location), Visits: c.visits})
}

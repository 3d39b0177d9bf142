package rules

import (
	"github.com/loopbreak/loopbreak/replay"
)

// Keys of oscillation; enable_loop_detection also turns on camping and
// score_adjustment.
var (
	enableLoopDetection         = unread(boolParam("enable_loop_detection", "replay oscillation, camping and their score adjustments (rules 4-6)"), liveWithoutDesign)
	oscillationReturnPenalty    = unread(floatParam("oscillation_return_penalty", -0.8, "added to the confidence of an action returning into the pattern", bound(-1), bound(0)), liveWithoutDesign)
	oscillationExplorationBonus = unread(floatParam("oscillation_exploration_bonus", 0.5, "added to the confidence of an action leaving the pattern", bound(0), bound(1)), liveWithoutDesign)
)

// liveWithoutDesign is what the live agent does with the design rules'
// keys: ZorkGPT never shipped rules 4-6, and its loader ignores them.
const liveWithoutDesign = "run without oscillation and camping detection"

// OscillationDetection is the kind of oscillation.
var OscillationDetection = &Kind{Name: "detection", Doc: "the last four locations form A-B-A-B", Fields: []string{"pattern"}}

// Oscillation is RULES.md section 4: A-B-A-B detection (design spec).
var Oscillation = &Rule{
	Name:    "oscillation",
	Origin:  OriginDesign,
	Title:   "A-B-A-B movement between two locations",
	Section: "docs/rules.md#oscillation",
	Doc: "Keeps the last 20 turn-start locations and detects an oscillation when the last four read " +
		"A, B, A, B with A != B. The pattern [A, B] feeds score_adjustment, which penalises actions " +
		"leading back into it and rewards actions leading away. A design proposal: ZorkGPT never shipped it.",
	Params:  []*Param{enableLoopDetection.Param, oscillationReturnPenalty.Param, oscillationExplorationBonus.Param},
	Kinds:   []*Kind{OscillationDetection},
	Enabled: enableLoopDetection.Get,
	Reads:   []*Param{enableLoopDetection.Param},
	New: func(c *Config, ep *replay.Episode) Stepper {
		o, ok := freeOscillations.Get()
		if !ok {
			o = new(oscillationState)
		}
		hist := o.hist
		hist.reset(historyLen)
		*o = oscillationState{hist: hist}
		return o
	},
}

// oscillationState publishes this turn's detection to score_adjustment.
type oscillationState struct {
	hist     history[replay.Sym]
	detected bool
	pattern  [2]replay.Sym
}

// freeOscillations holds released steppers, their histories' arrays, for
// the next episode's.
var freeOscillations = make(replay.FreeList[*oscillationState], 16)

func (o *oscillationState) release() { freeOscillations.Put(o) }

func (o *oscillationState) Step(t *replay.Turn, env *Env) {
	o.detected = false
	if t.LocStart == 0 {
		return
	}
	o.hist.push(t.LocStart)
	h := o.hist.buf
	n := len(h)
	if n < 4 {
		return
	}
	if h[n-4] == h[n-2] && h[n-3] == h[n-1] && h[n-4] != h[n-3] {
		o.detected, o.pattern = true, [2]replay.Sym{h[n-4], h[n-3]}
		ep := env.Episode
		env.Report(&Firing{Turn: t.N, Rule: Oscillation, Kind: OscillationDetection, Pattern: [2]string{ep.Str(h[n-4]), ep.Str(h[n-3])}})
	}
}

package rules

import (
	"github.com/loopbreak/loopbreak/replay"
)

// Keys of location_revisit.
var (
	enableLocationPenalty  = boolParam("enable_location_penalty", "replay the revisit penalty")
	locationRevisitPenalty = floatParam("location_revisit_penalty", -0.2, "penalty per recent visit", bound(-1), bound(0))
	locationRevisitWindow  = intParam("location_revisit_window", 5, "recent locations checked (current excluded)", bound(2), bound(20))
)

// OverrideConfidence is the critic confidence below which ZorkGPT's
// rejection override may let a rejected action through (when it occurs at
// most twice among the last 8 actions). The penalty lowers the critic's
// confidence, never its score, so this override is its only live effect: a
// penalty never rejects, and one leaving less is flagged low_confidence.
const OverrideConfidence = 0.3

// Penalty is the kind of location_revisit.
// Its Doc stays one line (shell completion shows it); the rule's Doc says
// what low_confidence means.
var Penalty = &Kind{Name: "penalty", Doc: "the critic's confidence would have been lowered (adjusted is null when the log has no confidence)", Fields: []string{"location", "visits", "penalty", "base", "adjusted", "low_confidence"}}

// LocationRevisit is RULES.md section 3: the revisit penalty (Phase 1B).
var LocationRevisit = &Rule{
	Name:    "location_revisit",
	Origin:  OriginZorkGPT,
	Title:   "penalty on the critic's confidence for revisiting a recent location",
	Section: "docs/rules.md#location_revisit",
	Doc: "Keeps the last 20 turn-start locations. At each turn it counts how often the current location " +
		"occurs among the location_revisit_window entries before it (the current entry excluded); each " +
		"occurrence costs location_revisit_penalty on the critic's confidence, clamped to [0, 1]. " +
		"Turns whose location is unknown are not recorded. The penalty lowers confidence, not the critic's " +
		"score, so it never rejects an action; below 0.3 it is flagged low_confidence (ZorkGPT's rejection " +
		"override could then let a rejected action through).",
	Params:  []*Param{enableLocationPenalty.Param, locationRevisitPenalty.Param, locationRevisitWindow.Param},
	Kinds:   []*Kind{Penalty},
	Enabled: enableLocationPenalty.Get,
	New: func(c *Config, ep *replay.Episode) Stepper {
		r, ok := freeLocationRevisits.Get()
		if !ok {
			r = new(locationRevisit)
		}
		r.penalty, r.window = locationRevisitPenalty.Get(c), locationRevisitWindow.Get(c)
		r.hist.reset(historyLen)
		return r
	},
}

type locationRevisit struct {
	penalty float64
	window  int
	hist    history[replay.Sym]
}

// freeLocationRevisits holds released steppers, their histories' arrays,
// for the next episode's (a directory of small episodes made both an
// episode).
var freeLocationRevisits = make(replay.FreeList[*locationRevisit], 16)

func (r *locationRevisit) release() { freeLocationRevisits.Put(r) }

func clamp01(x float64) float64 { return max(0, min(1, x)) }

func (r *locationRevisit) Step(t *replay.Turn, env *Env) {
	if t.LocStart == 0 {
		return
	}
	r.hist.push(t.LocStart)
	h := r.hist.buf
	w := min(r.window, len(h)-1)
	if w < 1 {
		return
	}
	visits := 0
	for _, l := range h[len(h)-1-w : len(h)-1] {
		if l == t.LocStart {
			visits++
		}
	}
	if visits == 0 {
		return
	}
	f := Firing{Turn: t.N, Rule: LocationRevisit, Kind: Penalty, Location: env.Episode.Str(t.LocStart), Visits: visits, Penalty: r.penalty * float64(visits)}
	if t.HasBase {
		base := env.Episode.ZorkOf(t).Base
		f.HasBase, f.Base, f.Adjusted = true, base, clamp01(base+f.Penalty)
		f.LowConfidence = f.Adjusted < OverrideConfidence
	}
	env.Report(&f)
}

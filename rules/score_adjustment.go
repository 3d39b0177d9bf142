package rules

import (
	"strings"

	"github.com/loopbreak/loopbreak/replay"
)

// RejectionThreshold is score_adjustment's key; analyze reads it too (a
// revisit penalty below it is counted apart).
var RejectionThreshold = unread(floatParam("rejection_threshold", 0.5, "an adjusted confidence below this rejects the action", bound(0), bound(1)), liveWithoutDesign)

// Adjustment is the kind of score_adjustment.
var Adjustment = &Kind{Name: "adjustment", Doc: "the critic's confidence would have been adjusted", Fields: []string{"action", "destination", "base", "adjusted", "rejected"}}

// ScoreAdjustment is RULES.md section 6: the programmatic score change
// applied when oscillation or camping is detected.
var ScoreAdjustment = &Rule{
	Name:    "score_adjustment",
	Origin:  OriginDesign,
	Title:   "penalty or bonus on the critic's confidence during oscillation or camping",
	Section: "docs/rules.md#score_adjustment",
	Doc: "Predicts where a movement action leads from the map learned on earlier turns of the episode " +
		"(only turns with a recorded move teach it; the most recent wins). During an oscillation an " +
		"action back into the pattern loses oscillation_return_penalty and one leading elsewhere gains " +
		"oscillation_exploration_bonus; during camping an action returning to the camped location loses " +
		"camping_return_penalty. Below rejection_threshold the action would have been rejected. Unknown " +
		"destination or no logged confidence: no adjustment. A design proposal: ZorkGPT never shipped it.",
	Params:   []*Param{RejectionThreshold.Param},
	Kinds:    []*Kind{Adjustment},
	Requires: []*Rule{Oscillation, Camping},
	Enabled:  enableLoopDetection.Get,
	New: func(c *Config, ep *replay.Episode) Stepper {
		return &scoreAdjustment{
			oscPenalty: oscillationReturnPenalty.Get(c),
			oscBonus:   oscillationExplorationBonus.Get(c),
			campPen:    campingReturnPenalty.Get(c),
			threshold:  RejectionThreshold.Get(c),
			exits:      map[exit]replay.Sym{},
		}
	},
}

type exit struct {
	from replay.Sym
	dir  string
}

type scoreAdjustment struct {
	oscPenalty, oscBonus, campPen, threshold float64
	exits                                    map[exit]replay.Sym
}

// directions maps every spelling RULES.md accepts to one canonical name.
var directions = map[string]string{
	"n": "north", "north": "north", "s": "south", "south": "south",
	"e": "east", "east": "east", "w": "west", "west": "west",
	"ne": "northeast", "northeast": "northeast", "nw": "northwest", "northwest": "northwest",
	"se": "southeast", "southeast": "southeast", "sw": "southwest", "southwest": "southwest",
	"u": "up", "up": "up", "d": "down", "down": "down", "in": "in", "out": "out",
}

// direction returns the canonical direction of a movement action, "" for
// any other action: norm, then an optional leading "go ".
func direction(action string) string {
	a := norm(action)
	if rest, ok := strings.CutPrefix(a, "go "); ok {
		a = rest
	}
	return directions[a]
}

func (s *scoreAdjustment) Step(t *replay.Turn, env *Env) {
	if t.Filled || !t.HasAction {
		return
	}
	dir := direction(env.Episode.Str(t.Action))
	if dir == "" {
		return
	}
	dest, known := s.exits[exit{t.LocStart, dir}]
	// Learn from this turn only after predicting: the map is from earlier turns.
	if t.Moved && t.LocStart != 0 && t.LocEnd != 0 {
		s.exits[exit{t.LocStart, dir}] = t.LocEnd
	}
	if !known || !t.HasBase {
		return
	}
	osc := resultOf[*oscillationState](env, Oscillation)
	camp := resultOf[*campingState](env, Camping)
	score, applied := t.Base, false
	if osc != nil && osc.detected {
		applied = true
		if dest == osc.pattern[0] || dest == osc.pattern[1] {
			score = max(0, score+s.oscPenalty)
		} else {
			score = min(1, score+s.oscBonus)
		}
	}
	if camp != nil && camp.detected && dest == camp.location {
		applied = true
		score = max(0, score+s.campPen)
	}
	if !applied {
		return
	}
	score = clamp01(score)
	ep := env.Episode
	env.Report(Firing{Turn: t.N, Rule: ScoreAdjustment, Kind: Adjustment, Action: ep.Str(t.Action), Destination: ep.Str(dest),
		HasBase: true, Base: t.Base, Adjusted: score, Rejected: score < s.threshold})
}

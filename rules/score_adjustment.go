package rules

import (
	"strings"
	"sync"

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
	Reads: []*Param{enableLoopDetection.Param, oscillationReturnPenalty.Param, oscillationExplorationBonus.Param,
		campingReturnPenalty.Param, RejectionThreshold.Param},
	New: func(c *Config, ep *replay.Episode) Stepper {
		s, ok := freeScoreAdjustments.Get()
		if !ok {
			s = new(scoreAdjustment)
		}
		exits := s.exits
		*s = scoreAdjustment{
			oscPenalty: oscillationReturnPenalty.Get(c),
			oscBonus:   oscillationExplorationBonus.Get(c),
			campPen:    campingReturnPenalty.Get(c),
			threshold:  RejectionThreshold.Get(c),
		}
		if sh, ok := shared.Load(ep); ok {
			s.dests = sh.(*sharedEpisode).destinations(ep)
		} else {
			if exits == nil {
				exits = map[exit]replay.Sym{}
			}
			s.exits = exits
		}
		return s
	},
}

type exit struct {
	from replay.Sym
	dir  string
}

type scoreAdjustment struct {
	oscPenalty, oscBonus, campPen, threshold float64
	exits                                    map[exit]replay.Sym
	// dests, when the episode is shared, is where each turn's move is
	// predicted to lead, from the whole episode's map (destinations);
	// turn counts the Steps.
	dests []int32
	turn  int
}

// freeScoreAdjustments holds released steppers, their maps of exits
// emptied, for the next episode's (a directory of small episodes made
// both an episode).
var freeScoreAdjustments = make(replay.FreeList[*scoreAdjustment], 16)

// release keeps s for the next episode, unless its map grew large (an
// episode of many rooms).
func (s *scoreAdjustment) release() {
	exits := s.exits
	*s = scoreAdjustment{}
	if len(exits) <= maxReusedExits {
		clear(exits)
		s.exits = exits
		freeScoreAdjustments.Put(s)
	}
}

// maxReusedExits bounds the map of exits a released stepper keeps.
const maxReusedExits = 1 << 10

// shared holds the episodes replayed several times (Share).
var shared sync.Map // *replay.Episode → *sharedEpisode

type sharedEpisode struct {
	once  sync.Once
	dests []int32

	mu   sync.Mutex
	camp map[int]*campingTrace // camping's window by its length (campingState)
}

// Share marks ep as about to be replayed several times, until release is
// called: what rules derive from the episode alone is then derived once,
// not once per replay. A sweep replays each episode once per setting of a
// component's keys; score_adjustment's map of exits learned turn by turn
// is the same in every replay.
func Share(ep *replay.Episode) (release func()) {
	shared.Store(ep, &sharedEpisode{})
	return func() { shared.Delete(ep) }
}

// destinations is, per turn of ep, the turn whose LocEnd its movement
// action is predicted to reach from the exits learned on earlier turns,
// -1 when there is none (Step's prediction, computed once).
func (sh *sharedEpisode) destinations(ep *replay.Episode) []int32 {
	sh.once.Do(func() {
		sh.dests = make([]int32, len(ep.Turns))
		exits := map[exit]int32{}
		for i := range ep.Turns {
			t := &ep.Turns[i]
			sh.dests[i] = -1
			if t.Filled || !t.HasAction {
				continue
			}
			dir := direction(ep.Str(t.Action))
			if dir == "" {
				continue
			}
			if j, known := exits[exit{t.LocStart, dir}]; known {
				sh.dests[i] = j
			}
			if t.Moved && t.LocStart != 0 && t.LocEnd != 0 {
				exits[exit{t.LocStart, dir}] = int32(i)
			}
		}
	})
	return sh.dests
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
	dest, known := s.predict(t, env)
	if !known || !t.HasBase {
		return
	}
	osc := resultOf[*oscillationState](env, Oscillation)
	camp := resultOf[*campingState](env, Camping)
	base := env.Episode.ZorkOf(t).Base
	score, applied := base, false
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
	env.Report(&Firing{Turn: t.N, Rule: ScoreAdjustment, Kind: Adjustment, Action: ep.Str(t.Action), Destination: ep.Str(dest),
		HasBase: true, Base: base, Adjusted: score, Rejected: score < s.threshold})
}

// predict returns where t's movement action leads by the exits learned on
// earlier turns of the episode, and whether it is known.
func (s *scoreAdjustment) predict(t *replay.Turn, env *Env) (replay.Sym, bool) {
	if s.dests != nil {
		j := s.dests[s.turn]
		s.turn++
		if j < 0 {
			return 0, false
		}
		return env.Episode.Turns[j].LocEnd, true
	}
	if t.Filled || !t.HasAction {
		return 0, false
	}
	dir := direction(env.Episode.Str(t.Action))
	if dir == "" {
		return 0, false
	}
	dest, known := s.exits[exit{t.LocStart, dir}]
	// Learn from this turn only after predicting: the map is from earlier turns.
	if t.Moved && t.LocStart != 0 && t.LocEnd != 0 {
		s.exits[exit{t.LocStart, dir}] = t.LocEnd
	}
	return dest, known
}

package rules

import (
	"fmt"
	"sort"

	"github.com/loopbreak/loopbreak/replay"
)

// ProgressVelocity is RULES.md section 1: stuck termination (Phase 1A with
// objective-based progress).
var ProgressVelocity = &Rule{
	Name:    "progress_velocity",
	Title:   "stuck termination after max_turns_stuck turns without progress",
	Section: "RULES.md §1",
	Doc: "Tracks the turn of the last progress: a score change (up or down) or, with objective-based " +
		"progress, an objective completed this turn or the turn before. Every stuck_check_interval turns " +
		"it checks how long the episode has been stuck; at max_turns_stuck or more that turn is a " +
		"termination check point. The first check point is where the live system would have ended the " +
		"episode (stuck_no_progress); later ones would also have fired. Nothing is detected at the first " +
		"turn, so a score change during it does not count.",
	Params: []Param{
		boolParam("enable_velocity_detection", "replay stuck termination and countdown warnings (rules 1 and 2)"),
		intParam("max_turns_stuck", 40, "turns without progress before termination", bound(1), nil),
		intParam("stuck_check_interval", 10, "check every N turns (turn % N == 0)", bound(1), nil),
		boolParam("enable_objective_based_progress", "an objective completion resets the stuck timer too"),
	},
	Kinds: []Kind{
		{Name: "termination", Doc: "first check point: the episode would have been terminated here", Fields: []string{"turns_stuck", "score"}},
		{Name: "checkpoint", Doc: "every check point at or past the threshold, the first included", Fields: []string{"turns_stuck", "score"}},
		{Name: "reset", Doc: "the stuck timer was reset (cause: score_change or objective_progress_reset)", Fields: []string{"cause", "turns_stuck"}},
	},
	Enabled: func(c *Config) bool { return c.Bool("enable_velocity_detection") },
	Check: func(c *Config) error {
		if c.Int("max_turns_stuck") < c.Int("stuck_check_interval") {
			return &ConstraintError{Keys: []string{"max_turns_stuck", "stuck_check_interval"},
				Msg: fmt.Sprintf("max_turns_stuck (%d) must be >= stuck_check_interval (%d)", c.Int("max_turns_stuck"), c.Int("stuck_check_interval"))}
		}
		return nil
	},
	New: func(c *Config, ep *replay.Episode) Stepper {
		objs := ep.ObjectiveTurns
		if !sort.IntsAreSorted(objs) {
			objs = append([]int(nil), objs...)
			sort.Ints(objs)
		}
		return &Velocity{
			maxStuck: c.Int("max_turns_stuck"),
			interval: c.Int("stuck_check_interval"),
			objOn:    c.Bool("enable_objective_based_progress"),
			objs:     objs,
		}
	},
}

// Velocity is the per-episode state of progress_velocity. StuckBefore is
// what stuck_warnings reads: t - last_change at the start of the turn.
type Velocity struct {
	maxStuck, interval int
	objOn              bool
	objs               []int
	next               int // objs[:next] are <= the current turn

	started     bool
	lastChange  int
	tracked     float64
	terminated  bool
	StuckBefore int
}

func (v *Velocity) Step(t *replay.Turn, env *Env) {
	if !v.started {
		v.started, v.lastChange, v.tracked = true, 0, t.Score
		v.StuckBefore = t.N
		return
	}
	stuck := t.N - v.lastChange
	v.StuckBefore = stuck
	for v.next < len(v.objs) && v.objs[v.next] <= t.N {
		v.next++
	}
	if t.Score != v.tracked {
		v.lastChange, v.tracked = t.N, t.Score
		if stuck > 0 {
			env.Report(Firing{Turn: t.N, Rule: "progress_velocity", Kind: "reset", Cause: "score_change", TurnsStuck: stuck, Score: t.Score})
		}
	} else if v.objOn && v.next > 0 && t.N-v.objs[v.next-1] <= 1 && stuck > 0 {
		// One completion resets on its own turn and again on the next,
		// as the live system's window check does.
		v.lastChange = t.N
		env.Report(Firing{Turn: t.N, Rule: "progress_velocity", Kind: "reset", Cause: "objective_progress_reset", TurnsStuck: stuck, Score: t.Score})
	}
	if t.N%v.interval == 0 && t.N-v.lastChange >= v.maxStuck {
		f := Firing{Turn: t.N, Rule: "progress_velocity", TurnsStuck: t.N - v.lastChange, Score: t.Score}
		if !v.terminated {
			v.terminated = true
			f.Kind = "termination"
			env.Report(f)
		}
		f.Kind = "checkpoint"
		env.Report(f)
	}
}

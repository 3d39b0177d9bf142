package rules

import (
	"fmt"
	"sort"

	"github.com/loopbreak/loopbreak/replay"
)

// Keys of progress_velocity; analyze reads EnableObjectiveBasedProgress,
// stuck_warnings reads MaxTurnsStuck.
var (
	EnableVelocityDetection = unread(boolParam("enable_velocity_detection", "replay stuck termination and countdown warnings (rules 1 and 2)"),
		"terminate stuck episodes whatever this says")
	// Bounds are ZorkGPT's (its loader refuses a value outside them).
	MaxTurnsStuck                = intParam("max_turns_stuck", 40, "turns without progress before termination", bound(1), bound(1000))
	StuckCheckInterval           = intParam("stuck_check_interval", 10, "check every N turns (turn % N == 0)", bound(1), bound(100))
	EnableObjectiveBasedProgress = boolParam("enable_objective_based_progress", "an objective completion resets the stuck timer too")
)

// Kinds of progress_velocity.
var (
	Termination = &Kind{Name: "termination", Doc: "first check point: the episode would have been terminated here", Fields: []string{"turns_stuck", "score"}}
	Checkpoint  = &Kind{Name: "checkpoint", Doc: "every check point at or past the threshold, the first included", Fields: []string{"turns_stuck", "score"}}
	Reset       = &Kind{Name: "reset", Doc: "the stuck timer was reset (cause: score_change or objective_progress_reset)", Fields: []string{"cause", "turns_stuck"}}
)

// ProgressVelocity is RULES.md section 1: stuck termination (Phase 1A with
// objective-based progress).
var ProgressVelocity = &Rule{
	Name:    "progress_velocity",
	Origin:  OriginZorkGPT,
	Title:   "stuck termination after max_turns_stuck turns without progress",
	Section: "docs/rules.md#progress_velocity",
	Doc: "Tracks the turn of the last progress: a score change (up or down) or, with objective-based " +
		"progress, an objective completed this turn or the turn before. Every stuck_check_interval turns " +
		"it checks how long the episode has been stuck; at max_turns_stuck or more that turn is a " +
		"termination check point. The first check point is where the live system would have ended the " +
		"episode (stuck_no_progress); later ones would also have fired. Nothing is detected at the first " +
		"turn, so a score change during it does not count.",
	Params:  []*Param{EnableVelocityDetection.Param, MaxTurnsStuck.Param, StuckCheckInterval.Param, EnableObjectiveBasedProgress.Param},
	Kinds:   []*Kind{Termination, Checkpoint, Reset},
	Enabled: EnableVelocityDetection.Get,
	Check: func(c *Config) error {
		if MaxTurnsStuck.Get(c) < StuckCheckInterval.Get(c) {
			return &ConstraintError{Keys: []string{MaxTurnsStuck.Key, StuckCheckInterval.Key},
				Msg: fmt.Sprintf("max_turns_stuck (%d) must be >= stuck_check_interval (%d)", MaxTurnsStuck.Get(c), StuckCheckInterval.Get(c))}
		}
		return nil
	},
	New: func(c *Config, ep *replay.Episode) Stepper {
		objs := ep.ObjectiveTurns
		if !sort.IntsAreSorted(objs) {
			objs = append([]int(nil), objs...)
			sort.Ints(objs)
		}
		v, ok := freeVelocities.Get()
		if !ok {
			v = new(velocity)
		}
		*v = velocity{
			maxStuck: MaxTurnsStuck.Get(c),
			interval: StuckCheckInterval.Get(c),
			objOn:    EnableObjectiveBasedProgress.Get(c),
			objs:     objs,
		}
		return v
	},
}

// velocity is the per-episode state of progress_velocity. stuckBefore is
// what stuck_warnings reads: t - last_change at the start of the turn.
type velocity struct {
	maxStuck, interval int
	objOn              bool
	objs               []int
	next               int // objs[:next] are <= the current turn

	started     bool
	lastChange  int
	tracked     float64
	terminated  bool
	stuckBefore int
	// reset is the reset firing Step reports (reportCause: a ReadReplay
	// packs its fields with no other tested), its four fields set each
	// time: Report keeps none (it may set its Unit, the same each time),
	// and a Firing literal zeroed its 336 bytes at each of a steps log's
	// thousands of resets (~54 instructions).
	reset Firing
}

// freeVelocities holds released steppers for the next episode's (a
// directory of small episodes made one an episode).
var freeVelocities = make(replay.FreeList[*velocity], 16)

func (v *velocity) release() {
	v.objs = nil // the episode's
	freeVelocities.Put(v)
}

func (v *velocity) Step(t *replay.Turn, env *Env) {
	if !v.started {
		v.started, v.lastChange, v.tracked = true, 0, t.Score
		v.reset = Firing{Rule: ProgressVelocity, Kind: Reset} // not in New: ProgressVelocity's own value
		v.stuckBefore = t.N
		return
	}
	stuck := t.N - v.lastChange
	v.stuckBefore = stuck
	for v.next < len(v.objs) && v.objs[v.next] <= t.N {
		v.next++
	}
	if t.Score != v.tracked {
		v.lastChange, v.tracked = t.N, t.Score
		if stuck > 0 {
			f := &v.reset
			f.Turn, f.Cause, f.TurnsStuck, f.Score = t.N, "score_change", stuck, t.Score
			env.reportCause(f)
		}
	} else if v.objOn && v.next > 0 && t.N-v.objs[v.next-1] <= 1 && stuck > 0 {
		// One completion resets on its own turn and again on the next,
		// as the live system's window check does.
		v.lastChange = t.N
		f := &v.reset
		f.Turn, f.Cause, f.TurnsStuck, f.Score = t.N, "objective_progress_reset", stuck, t.Score
		env.reportCause(f)
	}
	// The stuck count first: it is false at most turns, where the
	// check point's division (~10 instructions: Go tests its divisor
	// for -1) was made at each.
	if t.N-v.lastChange >= v.maxStuck && t.N%v.interval == 0 {
		f := Firing{Turn: t.N, Rule: ProgressVelocity, TurnsStuck: t.N - v.lastChange, Score: t.Score}
		if !v.terminated {
			v.terminated = true
			f.Kind = Termination
			env.Report(&f)
		}
		f.Kind = Checkpoint
		env.Report(&f)
	}
}

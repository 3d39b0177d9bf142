package rules

import (
	"fmt"

	"github.com/loopbreak/loopbreak/replay"
)

// Keys of stuck_warnings; analyze reads StuckWarningThreshold.
var (
	EnableStuckWarnings   = boolParam("enable_stuck_warnings", "replay countdown warnings")
	StuckWarningThreshold = intParam("stuck_warning_threshold", 20, "turns stuck before warnings start", bound(5), bound(100))
)

// Warning is the kind of stuck_warnings.
var Warning = &Kind{Name: "warning", Doc: "a countdown warning would have been shown", Fields: []string{"urgency", "turns_stuck", "turns_until_death"}}

// StuckWarnings is RULES.md section 2: countdown warnings (Phase 1C).
var StuckWarnings = &Rule{
	Name:    "stuck_warnings",
	Origin:  OriginZorkGPT,
	Title:   "countdown warnings once stuck for stuck_warning_threshold turns",
	Section: "docs/rules.md#stuck_warnings",
	Doc: "At the start of each turn, before the stuck timer sees the turn, computes how long the episode " +
		"has been stuck. From stuck_warning_threshold turns on it warns the agent how many turns remain " +
		"before termination (max_turns_stuck - stuck), with urgency critical (5 or fewer), urgent (10 or " +
		"fewer) or stagnation. Off when enable_velocity_detection is false.",
	Params:   []*Param{EnableStuckWarnings.Param, StuckWarningThreshold.Param},
	Kinds:    []*Kind{Warning},
	Requires: []*Rule{ProgressVelocity},
	Enabled: func(c *Config) bool {
		return EnableVelocityDetection.Get(c) && EnableStuckWarnings.Get(c)
	},
	Check: func(c *Config) error {
		if StuckWarningThreshold.Get(c) >= MaxTurnsStuck.Get(c) {
			return &ConstraintError{Keys: []string{StuckWarningThreshold.Key, MaxTurnsStuck.Key},
				Msg: fmt.Sprintf("stuck_warning_threshold (%d) must be < max_turns_stuck (%d)", StuckWarningThreshold.Get(c), MaxTurnsStuck.Get(c))}
		}
		return nil
	},
	New: func(c *Config, ep *replay.Episode) Stepper {
		s, ok := freeStuckWarnings.Get()
		if !ok {
			s = new(stuckWarnings)
		}
		*s = stuckWarnings{threshold: StuckWarningThreshold.Get(c), maxStuck: MaxTurnsStuck.Get(c)}
		return s
	},
}

type stuckWarnings struct {
	threshold, maxStuck int
	// v is progress_velocity's state, looked up at the first step (a
	// stepper is stepped in one Env; New clears it), where every step
	// looked it up among the replay's rules.
	v      *velocity
	looked bool
}

// freeStuckWarnings holds released steppers for the next episode's.
var freeStuckWarnings = make(replay.FreeList[*stuckWarnings], 16)

// reportOnly: a stuckWarnings keeps nothing but its lookup of
// progress_velocity (a ReadReplay need not step it while it drops its
// firings).
func (s *stuckWarnings) reportOnly() {}

func (s *stuckWarnings) release() {
	s.v, s.looked = nil, false // the episode's state is not held
	freeStuckWarnings.Put(s)
}

// urgency classifies turns_until_death as the live prompt does.
func urgency(turnsUntilDeath int) string {
	switch {
	case turnsUntilDeath <= 5:
		return "critical"
	case turnsUntilDeath <= 10:
		return "urgent"
	}
	return "stagnation"
}

func (s *stuckWarnings) Step(t *replay.Turn, env *Env) {
	if !s.looked {
		s.v, s.looked = resultOf[*velocity](env, ProgressVelocity), true
	}
	v := s.v
	if v == nil {
		return
	}
	stuck := v.stuckBefore
	if stuck >= s.threshold {
		left := s.maxStuck - stuck
		env.Report(&Firing{Turn: t.N, Rule: StuckWarnings, Kind: Warning, Urgency: urgency(left), TurnsStuck: stuck, TurnsUntilDeath: left})
	}
}

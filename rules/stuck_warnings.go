package rules

import (
	"fmt"

	"github.com/loopbreak/loopbreak/replay"
)

// StuckWarnings is RULES.md section 2: countdown warnings (Phase 1C).
var StuckWarnings = &Rule{
	Name:    "stuck_warnings",
	Title:   "countdown warnings once stuck for stuck_warning_threshold turns",
	Section: "RULES.md §2",
	Doc: "At the start of each turn, before the stuck timer sees the turn, computes how long the episode " +
		"has been stuck. From stuck_warning_threshold turns on it warns the agent how many turns remain " +
		"before termination (max_turns_stuck - stuck), with urgency critical (5 or fewer), urgent (10 or " +
		"fewer) or stagnation. Off when enable_velocity_detection is false.",
	Params: []Param{
		boolParam("enable_stuck_warnings", "replay countdown warnings"),
		intParam("stuck_warning_threshold", 20, "turns stuck before warnings start", bound(0), nil),
	},
	Kinds: []Kind{
		{Name: "warning", Doc: "a countdown warning would have been shown", Fields: []string{"urgency", "turns_stuck", "turns_until_death"}},
	},
	Requires: []string{"progress_velocity"},
	Enabled: func(c *Config) bool {
		return c.Bool("enable_velocity_detection") && c.Bool("enable_stuck_warnings")
	},
	Check: func(c *Config) error {
		if c.Int("stuck_warning_threshold") >= c.Int("max_turns_stuck") {
			return &ConstraintError{Keys: []string{"stuck_warning_threshold", "max_turns_stuck"},
				Msg: fmt.Sprintf("stuck_warning_threshold (%d) must be < max_turns_stuck (%d)", c.Int("stuck_warning_threshold"), c.Int("max_turns_stuck"))}
		}
		return nil
	},
	New: func(c *Config, ep *replay.Episode) Stepper {
		return &stuckWarnings{threshold: c.Int("stuck_warning_threshold"), maxStuck: c.Int("max_turns_stuck")}
	},
}

type stuckWarnings struct{ threshold, maxStuck int }

// Urgency classifies turns_until_death as the live prompt does.
func Urgency(turnsUntilDeath int) string {
	switch {
	case turnsUntilDeath <= 5:
		return "critical"
	case turnsUntilDeath <= 10:
		return "urgent"
	}
	return "stagnation"
}

func (s *stuckWarnings) Step(t *replay.Turn, env *Env) {
	v, _ := env.Of("progress_velocity").(*Velocity)
	if v == nil {
		return
	}
	stuck := v.StuckBefore
	if stuck >= s.threshold {
		left := s.maxStuck - stuck
		env.Report(Firing{Turn: t.N, Rule: "stuck_warnings", Kind: "warning", Urgency: Urgency(left), TurnsStuck: stuck, TurnsUntilDeath: left})
	}
}

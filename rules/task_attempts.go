package rules

import (
	"time"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules/detect"
)

// Keys of task_attempts. attempt_window is in seconds; a TOML string or
// --set value may spell it as a Go duration ("1h", "90m").
var (
	enableTaskAttempts         = enableParam("enable_task_attempts", "replay task_attempts (autopilot loops)")
	maxAttempts                = detectInt(detect.TaskParams, "max_attempts")
	attemptWindow              = secondsParam("attempt_window", 3600, "attempts older than this many seconds before the task's latest one are forgotten (a duration such as \"1h\" is accepted)", bound(1), nil)
	enableAutoUnblock          = detectBool(detect.TaskParams, "enable_auto_unblock")
	maxAttemptsBeforeForceNext = detectInt(detect.TaskParams, "max_attempts_before_force_next")
	attemptsRecovery           = detectBool(detect.TaskParams, "attempts_recovery")
)

// TaskLoop is the kind of task_attempts.
var TaskLoop = &Kind{Name: "loop", Doc: "a task's last max_attempts attempts in the window are all done, spin on the same blockers, or repeat the same blockers and completed work (loop_type)",
	Fields: []string{"task_id", "loop_type", "recommendation", "attempt_count"}}

// TaskAttempts is RULES.md §9: an autopilot going round a task.
var TaskAttempts = &Rule{
	Name:    "task_attempts",
	Origin:  OriginGeneric,
	Title:   "loop when a task's recent attempts repeat without new work",
	Section: "docs/rules.md#task_attempts",
	Doc: "The autopilot's LoopDetector as it runs (nateschmiedehaus/WeatherVane " +
		"tools/wvo_mcp/src/orchestrator/loop_detector.ts at f9495d8: recordAttempt, detectLoop, applyRecovery), " +
		"each attempt's timestamp standing for Date.now(). recordAttempt drops the task's attempts at or before " +
		"attempt_window before this one. detectLoop, with at least max_attempts attempts, takes the first that " +
		"holds on the last max_attempts: all done or completed is completed_task_revisit (force_next); the same " +
		"non-empty blockers (sort().join(',')) is blocked_task_spin (unblock_authority, escalate without " +
		"enable_auto_unblock); the same blockers and completed work is no_progress_repeat (force_next from " +
		"max_attempts_before_force_next attempts in the window, escalate below). attempt_count is the task's " +
		"attempts in the window. With attempts_recovery (applyRecovery) a firing clears the task's attempts.",
	Params:    []*Param{enableTaskAttempts.Param, maxAttempts.Param, attemptWindow.Param, enableAutoUnblock.Param, maxAttemptsBeforeForceNext.Param, attemptsRecovery.Param},
	Kinds:     []*Kind{TaskLoop},
	Enabled:   enableTaskAttempts.Get,
	Applies:   onAttempts,
	InputsDoc: "attempts",
	New: func(c *Config, ep *replay.Episode) Stepper {
		d, err := detect.NewTaskAttempts(detect.TaskConfig{
			MaxAttempts:                maxAttempts.Get(c),
			AttemptWindow:              time.Duration(attemptWindow.Get(c)) * time.Second,
			EnableAutoUnblock:          enableAutoUnblock.Get(c),
			MaxAttemptsBeforeForceNext: maxAttemptsBeforeForceNext.Get(c),
			AttemptsRecovery:           attemptsRecovery.Get(c),
		})
		if err != nil {
			panic(err) // the configuration was validated against the same bounds
		}
		return &taskAttempts{d: d}
	},
}

// taskAttempts hands its detector each attempt in a, filled in place
// (the two types have the same fields), where each was built and copied
// into the call.
type taskAttempts struct {
	d *detect.TaskAttempts
	a detect.Attempt
}

func (s *taskAttempts) Step(t *replay.Turn, env *Env) {
	i := t.N - 1
	if i < 0 || i >= env.Episode.NumAttempts() {
		return
	}
	s.a = detect.Attempt(env.Episode.Attempt(i))
	for _, f := range s.d.AttemptOf(&s.a) {
		env.Report(&Firing{Turn: t.N, Rule: TaskAttempts, Kind: TaskLoop, TaskID: f.TaskID, LoopType: f.LoopType,
			Recommendation: f.Recommendation, AttemptCount: f.AttemptCount})
	}
}

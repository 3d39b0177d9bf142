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
)

// TaskLoop is the kind of task_attempts.
var TaskLoop = &Kind{Name: "loop", Doc: "a task's last max_attempts attempts in the window repeat one pattern (loop_type) with the same completed work",
	Fields: []string{"task_id", "loop_type", "recommendation", "attempt_count"}}

// TaskAttempts is RULES.md §9: an autopilot going round a task.
var TaskAttempts = &Rule{
	Name:    "task_attempts",
	Origin:  OriginGeneric,
	Title:   "loop when a task's recent attempts repeat without new work",
	Section: "docs/rules.md#task_attempts",
	Doc: "After each attempt, its task's window is its attempts less than attempt_window before the task's " +
		"latest. With at least max_attempts there, the last max_attempts are judged, provided their " +
		"completed work is the same: all done is completed_task_revisit (force_next); all blocked on the " +
		"same blockers is blocked_task_spin (unblock_authority the first time, escalate after, or always " +
		"without enable_auto_unblock); all of one status is no_progress_repeat (force_next from " +
		"max_attempts_before_force_next attempts in the window, escalate below). Replay never clears a " +
		"task's attempts, so a loop fires at each further attempt.",
	Params:    []*Param{enableTaskAttempts.Param, maxAttempts.Param, attemptWindow.Param, enableAutoUnblock.Param, maxAttemptsBeforeForceNext.Param},
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
		})
		if err != nil {
			panic(err) // the configuration was validated against the same bounds
		}
		return &taskAttempts{d: d}
	},
}

type taskAttempts struct{ d *detect.TaskAttempts }

func (s *taskAttempts) Step(t *replay.Turn, env *Env) {
	i := t.N - 1
	if i < 0 || i >= len(env.Episode.Attempts) {
		return
	}
	a := env.Episode.Attempts[i]
	for _, f := range s.d.Attempt(detect.Attempt{TaskID: a.TaskID, Status: a.Status, Blockers: a.Blockers,
		CompletedWork: a.CompletedWork, SessionID: a.SessionID, Timestamp: a.Timestamp}) {
		env.Report(Firing{Turn: t.N, Rule: TaskAttempts, Kind: TaskLoop, TaskID: f.TaskID, LoopType: f.LoopType,
			Recommendation: f.Recommendation, AttemptCount: f.AttemptCount})
	}
}

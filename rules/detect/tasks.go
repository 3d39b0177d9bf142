package detect

import (
	"fmt"
	"slices"
	"time"
)

// Task statuses of the autopilot (seed 003).
const (
	StatusPending    = "pending"
	StatusInProgress = "in_progress"
	StatusBlocked    = "blocked"
	StatusDone       = "done"
)

// Loop types and recommendations of task_attempts (RULES.md §9).
const (
	LoopCompletedTaskRevisit = "completed_task_revisit"
	LoopBlockedTaskSpin      = "blocked_task_spin"
	LoopNoProgressRepeat     = "no_progress_repeat"

	RecommendForceNext        = "force_next"
	RecommendUnblockAuthority = "unblock_authority"
	RecommendEscalate         = "escalate"
)

// Attempt is one record of an autopilot's attempt at a task.
type Attempt struct {
	TaskID        string
	Status        string
	Blockers      []string
	CompletedWork []string
	SessionID     string
	Timestamp     time.Time
}

// TaskConfig configures task_attempts.
type TaskConfig struct {
	MaxAttempts                int           // max_attempts
	AttemptWindow              time.Duration // attempt_window
	EnableAutoUnblock          bool          // enable_auto_unblock
	MaxAttemptsBeforeForceNext int           // max_attempts_before_force_next
}

// TaskParams declares task_attempts' keys.
var TaskParams = []Param{
	{Key: "max_attempts", Type: TypeInt, Default: 3, Min: bound(2), Max: bound(100),
		Doc: "attempts at a task, inside the window, before its pattern is judged"},
	{Key: "attempt_window", Type: TypeDuration, Default: time.Hour, Min: bound(1e-9),
		Doc: "attempts older than this before the task's latest one are forgotten"},
	{Key: "enable_auto_unblock", Type: TypeBool, Default: true,
		Doc: "recommend unblock authority for a blocked task spin (else escalate)"},
	{Key: "max_attempts_before_force_next", Type: TypeInt, Default: 5, Min: bound(1), Max: bound(1000),
		Doc: "a no-progress repeat recommends force_next from this many attempts on, escalate below"},
}

// DefaultTaskConfig is the seed's recommended configuration.
func DefaultTaskConfig() TaskConfig {
	return TaskConfig{MaxAttempts: 3, AttemptWindow: time.Hour, EnableAutoUnblock: true, MaxAttemptsBeforeForceNext: 5}
}

// Validate checks the configuration against TaskParams.
func (c TaskConfig) Validate() error {
	return checkAll(TaskParams, c.values())
}

func (c TaskConfig) values() map[string]float64 {
	return map[string]float64{
		"max_attempts":                   float64(c.MaxAttempts),
		"attempt_window":                 c.AttemptWindow.Seconds(),
		"enable_auto_unblock":            b2f(c.EnableAutoUnblock),
		"max_attempts_before_force_next": float64(c.MaxAttemptsBeforeForceNext),
	}
}

// TaskFiring is one task_attempts firing (RULES.md §9: `{attempt, rule,
// kind, origin, task_id, loop_type, recommendation, attempt_count}`).
type TaskFiring struct {
	// Attempt is the attempt's 1-based record number.
	Attempt        int    `json:"attempt"`
	Rule           string `json:"rule"`
	Kind           string `json:"kind"`
	Origin         string `json:"origin"`
	TaskID         string `json:"task_id"`
	LoopType       string `json:"loop_type"`
	Recommendation string `json:"recommendation"`
	// AttemptCount is the number of the task's attempts in the window.
	AttemptCount int `json:"attempt_count"`
}

type taskAttempt struct {
	status   string
	blockers []string // sorted
	work     []string // sorted
	at       time.Time
}

type taskState struct {
	attempts []taskAttempt // log order, those inside the window
	latest   time.Time
	unblock  bool // unblock authority was recommended
}

// TaskAttempts is the task_attempts detector (RULES.md §9 and its
// Readings, from seed 003's loop_detector.ts). Attempts are replayed in log
// order; after each, its task's window holds its attempts with latest −
// timestamp < AttemptWindow, latest being the task's latest timestamp. With
// at least MaxAttempts there, the last MaxAttempts are judged, provided
// their completed work is the same (work that differs is never a loop):
//   - all done: completed_task_revisit, force_next;
//   - all blocked on the same non-empty blockers: blocked_task_spin,
//     unblock_authority the first time for the task, escalate at every
//     later spin and whenever auto-unblock is off;
//   - all of one status: no_progress_repeat, force_next once the window
//     holds MaxAttemptsBeforeForceNext attempts, escalate before.
//
// Blockers and work compare as sorted lists. Unlike the live recovery,
// replay never clears a task's attempts, so a loop fires at every further
// attempt.
type TaskAttempts struct {
	cfg   TaskConfig
	n     int
	tasks map[string]*taskState
}

// NewTaskAttempts returns a detector with no attempts.
func NewTaskAttempts(c TaskConfig) (*TaskAttempts, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("task_attempts: %w", err)
	}
	return &TaskAttempts{cfg: c, tasks: make(map[string]*taskState)}, nil
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

// Attempt records the next attempt and returns the firing, if any.
func (d *TaskAttempts) Attempt(a Attempt) []TaskFiring {
	d.n++
	ts := d.tasks[a.TaskID]
	if ts == nil {
		ts = &taskState{latest: a.Timestamp}
		d.tasks[a.TaskID] = ts
	}
	if a.Timestamp.After(ts.latest) {
		ts.latest = a.Timestamp
	}
	ts.attempts = append(ts.attempts, taskAttempt{
		status:   a.Status,
		blockers: sortedCopy(a.Blockers),
		work:     sortedCopy(a.CompletedWork),
		at:       a.Timestamp,
	})
	// The latest timestamp never decreases: an attempt out of the window
	// stays out, so it is dropped.
	ts.attempts = slices.DeleteFunc(ts.attempts, func(x taskAttempt) bool {
		return ts.latest.Sub(x.at) >= d.cfg.AttemptWindow
	})
	window := len(ts.attempts)
	if window < d.cfg.MaxAttempts {
		return nil
	}
	last := ts.attempts[window-d.cfg.MaxAttempts:]
	first := last[0]
	sameStatus, sameWork, sameBlockers := true, true, true
	for _, x := range last[1:] {
		sameStatus = sameStatus && x.status == first.status
		sameWork = sameWork && slices.Equal(x.work, first.work)
		sameBlockers = sameBlockers && slices.Equal(x.blockers, first.blockers)
	}
	if !sameWork || !sameStatus {
		return nil
	}
	var loop, rec string
	switch {
	case first.status == StatusDone:
		loop, rec = LoopCompletedTaskRevisit, RecommendForceNext
	case first.status == StatusBlocked && sameBlockers && len(first.blockers) > 0:
		loop, rec = LoopBlockedTaskSpin, RecommendUnblockAuthority
		if !d.cfg.EnableAutoUnblock || ts.unblock {
			rec = RecommendEscalate
		}
		ts.unblock = ts.unblock || rec == RecommendUnblockAuthority
	default:
		loop, rec = LoopNoProgressRepeat, RecommendEscalate
		if window >= d.cfg.MaxAttemptsBeforeForceNext {
			rec = RecommendForceNext
		}
	}
	return []TaskFiring{{
		Attempt:        d.n,
		Rule:           "task_attempts",
		Kind:           KindLoop,
		Origin:         OriginGeneric,
		TaskID:         a.TaskID,
		LoopType:       loop,
		Recommendation: rec,
		AttemptCount:   window,
	}}
}

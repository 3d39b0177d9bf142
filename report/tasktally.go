package report

// An attempts log's tasks: the task_attempts firings grouped by task, and
// each task's attempts counted (the text's and JSON's tasks table).

import (
	"slices"
	"unsafe"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// TaskRow is one task of an attempts log on which task_attempts fired.
type TaskRow struct {
	TaskID         string `json:"task_id"`
	Attempts       int    `json:"attempts"`       // the task's attempts in the log
	LoopType       string `json:"loop_type"`      // at the first firing
	Recommendation string `json:"recommendation"` // at the first firing
	// LastRecommendation is the latest firing's, when it changed (a spin
	// that went on after unblock authority escalates).
	LastRecommendation string `json:"last_recommendation,omitempty"`
	FirstFired         int    `json:"first_fired"` // the attempt (record number) of the first firing
	Firings            int    `json:"firings"`
	// AttemptsSaved are the task's attempts after the first firing: those
	// following its recommendation there would have spared.
	AttemptsSaved int `json:"attempts_saved"`
}

// Tasks groups the task_attempts firings of an attempts log by task, in
// the order tasks first fired; nil for other logs.
func Tasks(o *analyze.Outcome, ep *replay.Episode) []TaskRow {
	if ep.Format != replay.FormatAttempts {
		return nil
	}
	if s, ok := o.Sink.(*AgentStory); ok && o.Firings == nil && s.tasks != nil {
		return s.tasks.finish(ep) // tallied as they came
	}
	var t taskTally
	for i := range o.Firings {
		t.add(&o.Firings[i])
	}
	return t.finish(ep)
}

// taskTally groups task_attempts firings by task a firing at a time
// (detectorTally's reason).
type taskTally struct {
	rows   []TaskRow
	index  map[string]int
	recent taskSlots // the tasks add found, by address
}

func (t *taskTally) add(f *rules.Firing) {
	if f.Rule != rules.TaskAttempts {
		return
	}
	k, ok := t.recent.find(f.TaskID)
	if !ok {
		k, ok = t.index[f.TaskID]
		if !ok {
			if t.index == nil {
				t.index = map[string]int{}
			}
			k = len(t.rows)
			t.index[f.TaskID] = k
			t.rows = append(t.rows, TaskRow{TaskID: f.TaskID, LoopType: f.LoopType, Recommendation: f.Recommendation, FirstFired: f.Turn})
		}
		t.recent.note(f.TaskID, k)
	}
	if f.Kind == rules.Reset {
		return // a reset of the stuck timer is progress, not an alarm
	}
	row := &t.rows[k]
	row.Firings++
	if f.Recommendation != row.Recommendation {
		row.LastRecommendation = f.Recommendation
	}
}

// finish counts each task's attempts in ep and those after its first
// firing, in a copy of the rows (it may be asked twice): one pass over
// the attempts, each task found by its id (a pass per task was quadratic
// in a log whose many tasks fire), first by the id's address among the
// last few found (taskSlots).
func (t *taskTally) finish(ep *replay.Episode) []TaskRow {
	rows := slices.Clone(t.rows)
	if len(rows) == 0 {
		return rows
	}
	var recent taskSlots
	for n := range ep.NumAttempts() {
		task := ep.AttemptTask(n)
		k, ok := recent.find(task)
		if !ok {
			k, ok = t.index[task]
			if !ok {
				k = -1 // a task that never fired
			}
			recent.note(task, k)
		}
		if k < 0 {
			continue
		}
		row := &rows[k]
		row.Attempts++
		if n+1 > row.FirstFired {
			row.AttemptsSaved++
		}
	}
	return rows
}

// taskSlots holds the row index of a few task ids, found by the id's
// address and length: an episode's task ids are its interned strings,
// each at one address however many attempts and firings name it, where
// a map hashed the id at each (a fifth of the report's pass over an
// attempts log). An id at another address is found in the map and noted.
type taskSlots struct {
	slots [8]taskSlot
	n     int
}

type taskSlot struct {
	task string
	k    int
}

// find returns the index noted for task, false when none is.
func (s *taskSlots) find(task string) (int, bool) {
	for i := range s.slots[:s.n] {
		if e := &s.slots[i]; len(e.task) == len(task) && unsafe.StringData(e.task) == unsafe.StringData(task) {
			return e.k, true
		}
	}
	return 0, false
}

// note notes task's index k, when a slot is free: the first tasks met
// keep theirs.
func (s *taskSlots) note(task string, k int) {
	if s.n < len(s.slots) {
		s.slots[s.n] = taskSlot{task, k}
		s.n++
	}
}

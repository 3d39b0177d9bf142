package detect

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Task statuses of the autopilot (seed 003). Statuses are any string: the
// component compares them with "done" and "completed" only.
const (
	StatusPending    = "pending"
	StatusInProgress = "in_progress"
	StatusBlocked    = "blocked"
	StatusDone       = "done"
	StatusCompleted  = "completed"
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
	AttemptsRecovery           bool          // attempts_recovery
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
	{Key: "attempts_recovery", Type: TypeBool, Default: true,
		Doc: "a firing clears its task's attempts, as the component's applyRecovery does (off: every further attempt fires again)"},
}

// DefaultTaskConfig is the component's default configuration.
func DefaultTaskConfig() TaskConfig {
	return TaskConfig{MaxAttempts: 3, AttemptWindow: time.Hour, EnableAutoUnblock: true, MaxAttemptsBeforeForceNext: 5,
		AttemptsRecovery: true}
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
		"attempts_recovery":              b2f(c.AttemptsRecovery),
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

// taskNode is one recorded attempt of a task, a node of the task's list of
// attempts in log order.
type taskNode struct {
	at         time.Time
	t          instant // at's, when plain (instantOf)
	status     string
	blockers   string // blockers.sort().join(',')
	work       string // completedWork.sort().join(',')
	prev, next int    // neighbours in log order; -1 for none
}

// taskState is a task's recorded attempts. The component filters the
// whole list by timestamp at every record; here the attempts sit in a
// linked list (log order, for the last max_attempts) indexed by a min-heap
// on timestamps (for the drop), so that an attempt costs O(log n) whatever
// the order of the timestamps, where refiltering cost O(n).
type taskState struct {
	nodes      []taskNode
	head, tail int
	byTime     []int // min-heap of live nodes' indices by timestamp
	live       int
	// timed says a node's timestamp is not plain (instantOf): the nodes
	// are ordered and dropped by their time.Time until the state is
	// reset, and by their instants while it is false.
	timed bool
}

func (s *taskState) reset() {
	s.nodes, s.byTime = s.nodes[:0], s.byTime[:0]
	s.head, s.tail, s.live, s.timed = -1, -1, 0, false
}

func (s *taskState) before(i, j int) bool {
	a, b := &s.nodes[s.byTime[i]], &s.nodes[s.byTime[j]]
	if s.timed {
		return a.at.Before(b.at)
	}
	return a.t.before(b.t)
}

func (s *taskState) siftUp(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !s.before(i, p) {
			return
		}
		s.byTime[i], s.byTime[p] = s.byTime[p], s.byTime[i]
		i = p
	}
}

func (s *taskState) siftDown(i int) {
	n := len(s.byTime)
	for {
		m := i
		if l := 2*i + 1; l < n && s.before(l, m) {
			m = l
		}
		if r := 2*i + 2; r < n && s.before(r, m) {
			m = r
		}
		if m == i {
			return
		}
		s.byTime[i], s.byTime[m] = s.byTime[m], s.byTime[i]
		i = m
	}
}

func (s *taskState) push(n taskNode) {
	var plain bool
	n.t, plain = instantOf(n.at)
	s.timed = s.timed || !plain
	n.prev, n.next = s.tail, -1
	i := len(s.nodes)
	s.nodes = append(s.nodes, n)
	if s.tail >= 0 {
		s.nodes[s.tail].next = i
	} else {
		s.head = i
	}
	s.tail = i
	s.live++
	s.byTime = append(s.byTime, i)
	s.siftUp(len(s.byTime) - 1)
}

// dropOlder removes the attempts at or before cutoff (the component keeps
// `a.timestamp > cutoff`); now is the last node's timestamp.
func (s *taskState) dropOlder(now time.Time, window time.Duration) {
	// The nodes' instants, unless a node's timestamp is not plain:
	// time.Time.Sub, which checks its result for overflow by adding it
	// back, was 2% of an attempts log's analysis.
	last, plain := s.nodes[s.tail].t, !s.timed && window > 0 // pushed last: now's instant
	for len(s.byTime) > 0 {
		if n := &s.nodes[s.byTime[0]]; plain && !atLeast(last, n.t, window) || !plain && now.Sub(n.at) < window {
			break
		}
		i := s.byTime[0]
		end := len(s.byTime) - 1
		s.byTime[0] = s.byTime[end]
		s.byTime = s.byTime[:end]
		s.siftDown(0)
		n := &s.nodes[i]
		if n.prev >= 0 {
			s.nodes[n.prev].next = n.next
		} else {
			s.head = n.next
		}
		if n.next >= 0 {
			s.nodes[n.next].prev = n.prev
		} else {
			s.tail = n.prev
		}
		s.live--
	}
	if s.live == 0 {
		s.reset()
	} else if len(s.nodes) > 2*s.live+64 {
		s.compact()
	}
}

// compact drops the removed nodes, keeping memory proportional to the
// attempts in the window.
func (s *taskState) compact() {
	nodes := make([]taskNode, 0, 2*s.live)
	for i := s.head; i >= 0; i = s.nodes[i].next {
		n := s.nodes[i]
		n.prev, n.next = len(nodes)-1, len(nodes)+1
		nodes = append(nodes, n)
	}
	nodes[len(nodes)-1].next = -1
	s.nodes, s.head, s.tail = nodes, 0, len(nodes)-1
	s.byTime = s.byTime[:0]
	for i := range nodes {
		s.byTime = append(s.byTime, i)
	}
	for i := len(s.byTime)/2 - 1; i >= 0; i-- {
		s.siftDown(i)
	}
}

// TaskAttempts is the task_attempts detector: the autopilot's LoopDetector
// (nateschmiedehaus/WeatherVane tools/wvo_mcp/src/orchestrator/
// loop_detector.ts at f9495d8) replayed over logged attempts, with each
// attempt's own timestamp standing for Date.now().
//
// Record is recordAttempt: the attempt is appended to its task's list, and
// the task's attempts at or before `timestamp − AttemptWindow` are dropped.
// Detect is detectLoop: none for an empty task id or fewer than
// MaxAttempts attempts; else, on the last MaxAttempts attempts, the first
// of these that holds:
//   - every status "done" or "completed": completed_task_revisit,
//     force_next;
//   - the same blockers on each, not empty: blocked_task_spin,
//     unblock_authority (escalate without EnableAutoUnblock);
//   - the same blockers (possibly none) and the same completed work on
//     each: no_progress_repeat, force_next from MaxAttemptsBeforeForceNext
//     attempts in the list, escalate below.
//
// Lists compare as JavaScript's `sort().join(',')` strings (UTF-16 order;
// ["a,b"] equals ["a", "b"]); attempt_count is the task's list length.
// Recover is applyRecovery's `attempts.delete(taskId)`. Attempt does all
// three, Recover only when AttemptsRecovery is on and the attempt fired.
type TaskAttempts struct {
	cfg    TaskConfig
	n      int
	tasks  map[string]*taskState
	sorted []string
	fired  [1]TaskFiring // Attempt's result
	joins  [4]sortJoin   // the lists joined last
	nextJ  int
}

// sortJoin is a list (a copy) and its jsSortJoin: an autopilot logs the
// same blockers and work attempt after attempt, and sorting and joining
// them made a string each time.
type sortJoin struct {
	in  []string
	out string
}

// NewTaskAttempts returns a detector with no attempts.
func NewTaskAttempts(c TaskConfig) (*TaskAttempts, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("task_attempts: %w", err)
	}
	return &TaskAttempts{cfg: c, tasks: make(map[string]*taskState)}, nil
}

// Attempt records the next attempt, detects and, with AttemptsRecovery,
// recovers; it returns the firing, if any, valid until the next call.
// The task's state is looked up once for the three.
func (d *TaskAttempts) Attempt(a Attempt) []TaskFiring { return d.AttemptOf(&a) }

// AttemptOf is Attempt of *a, which it does not keep: a caller that fills
// one Attempt for each of its records does not copy it (120 bytes) into
// each call.
func (d *TaskAttempts) AttemptOf(a *Attempt) []TaskFiring {
	d.n++
	s := d.record(a)
	f := &d.fired[0]
	if !d.detect(a.TaskID, s, f) {
		return nil
	}
	if d.cfg.AttemptsRecovery {
		s.reset()
	}
	f.Attempt = d.n
	return d.fired[:]
}

// Record is the component's recordAttempt, at the attempt's timestamp.
func (d *TaskAttempts) Record(a Attempt) { d.record(&a) }

// record is Record; it returns the task's state. a is a pointer: an
// Attempt is 120 bytes, copied at every call.
func (d *TaskAttempts) record(a *Attempt) *taskState {
	s := d.tasks[a.TaskID]
	if s == nil {
		s = &taskState{}
		s.reset()
		d.tasks[a.TaskID] = s
	}
	s.push(taskNode{at: a.Timestamp, status: a.Status,
		blockers: d.jsSortJoin(a.Blockers), work: d.jsSortJoin(a.CompletedWork)})
	s.dropOlder(a.Timestamp, d.cfg.AttemptWindow)
	return s
}

// Count is the number of the task's attempts kept (the component's
// getStatus attemptCount; 0 for a task it does not list).
func (d *TaskAttempts) Count(taskID string) int {
	if s := d.tasks[taskID]; s != nil {
		return s.live
	}
	return 0
}

// Recover forgets the task's attempts (applyRecovery's last act).
func (d *TaskAttempts) Recover(taskID string) {
	if s := d.tasks[taskID]; s != nil {
		s.reset()
	}
}

// Clear forgets every task's attempts (the component's clear).
func (d *TaskAttempts) Clear() { clear(d.tasks) }

// Detect is the component's detectLoop for taskID; the firing's Attempt
// is left 0.
func (d *TaskAttempts) Detect(taskID string) (TaskFiring, bool) {
	var f TaskFiring
	ok := d.detect(taskID, d.tasks[taskID], &f)
	return f, ok
}

// detect is Detect of the task's state s (nil for none), the firing
// written to f when it fires (f is left as it was otherwise).
func (d *TaskAttempts) detect(taskID string, s *taskState, f *TaskFiring) bool {
	k := d.cfg.MaxAttempts
	if taskID == "" || s == nil || s.live < k {
		return false
	}
	// The last k attempts, walked from the last: the same blockers (or
	// work) on each is the same as the last's on each, and the first's
	// blockers are the last's when they are the same. The last is read
	// for its status alone (its lists are its own), and the walk goes on
	// from the one before.
	last := &s.nodes[s.tail]
	allCompleted, sameBlockers, sameWork := last.status == StatusDone || last.status == StatusCompleted, true, true
	for i, n := last.prev, 1; i >= 0 && n < k; i, n = s.nodes[i].prev, n+1 {
		x := &s.nodes[i]
		allCompleted = allCompleted && (x.status == StatusDone || x.status == StatusCompleted)
		sameBlockers = sameBlockers && x.blockers == last.blockers
		sameWork = sameWork && x.work == last.work
	}
	var loop, rec string
	switch {
	case allCompleted:
		loop, rec = LoopCompletedTaskRevisit, RecommendForceNext
	case sameBlockers && last.blockers != "":
		loop, rec = LoopBlockedTaskSpin, RecommendUnblockAuthority
		if !d.cfg.EnableAutoUnblock {
			rec = RecommendEscalate
		}
	case sameBlockers && sameWork:
		loop, rec = LoopNoProgressRepeat, RecommendEscalate
		if s.live >= d.cfg.MaxAttemptsBeforeForceNext {
			rec = RecommendForceNext
		}
	default:
		return false
	}
	*f = TaskFiring{Rule: "task_attempts", Kind: KindLoop, Origin: OriginGeneric, TaskID: taskID,
		LoopType: loop, Recommendation: rec, AttemptCount: s.live}
	return true
}

// jsSortJoin is JavaScript's `xs.sort().join(',')`: strings ordered by
// UTF-16 code units.
func (d *TaskAttempts) jsSortJoin(xs []string) string {
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	for i := range d.joins {
		if j := &d.joins[i]; slices.Equal(j.in, xs) {
			return j.out
		}
	}
	d.sorted = append(d.sorted[:0], xs...)
	slices.SortFunc(d.sorted, compareUTF16)
	out := strings.Join(d.sorted, ",")
	if len(xs) <= 16 { // a long list is not kept, nor compared with each list
		j := &d.joins[d.nextJ]
		j.in, j.out = append(j.in[:0], xs...), out
		d.nextJ = (d.nextJ + 1) % len(d.joins)
	}
	return out
}

// compareUTF16 orders strings as JavaScript compares them: by UTF-16 code
// units, where a character above U+FFFF (a surrogate pair, from U+D800)
// sorts before U+E000–U+FFFF. Byte order breaks ties between strings whose
// invalid UTF-8 decodes alike.
func compareUTF16(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		r1, n1 := utf8.DecodeRuneInString(a[i:])
		r2, n2 := utf8.DecodeRuneInString(b[j:])
		if r1 != r2 {
			u1, u2 := firstUnit(r1), firstUnit(r2)
			if u1 != u2 {
				return int(u1) - int(u2)
			}
			return int(r1) - int(r2) // one high surrogate: the low ones follow the code points
		}
		i, j = i+n1, j+n2
	}
	switch {
	case i < len(a):
		return 1
	case j < len(b):
		return -1
	}
	return strings.Compare(a, b)
}

// firstUnit is the first UTF-16 code unit of r.
func firstUnit(r rune) rune {
	if r >= 0x10000 {
		return 0xD800 + (r-0x10000)>>10
	}
	return r
}

package detect

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2025, 10, 18, 9, 0, 0, 0, time.UTC)

func att(task, status string, min int, blockers, work []string) Attempt {
	return Attempt{TaskID: task, Status: status, Blockers: blockers, CompletedWork: work,
		SessionID: fmt.Sprintf("session_%d", min), Timestamp: t0.Add(time.Duration(min) * time.Minute)}
}

func tsConfig(mod func(*TaskConfig)) TaskConfig {
	c := DefaultTaskConfig()
	if mod != nil {
		mod(&c)
	}
	return c
}

// TestLoopDetectorSuite translates loop_detector.test.ts (WeatherVane
// f9495d8) case for case: each records its attempts (Record, at one
// minute apart for Date.now()), then calls detectLoop once (Detect) and,
// where the TS test does, applyRecovery (Recover). The state machine's
// context entries are outside the replay; what the recovery does to the
// detector (clearing the task) and the recommendation it acts on are
// checked instead.
func TestLoopDetectorSuite(t *testing.T) {
	type want struct {
		looping bool
		loop    string // "" = not checked; "none" when not looping
		count   int    // 0 = not checked
		rec     string // "" = not checked
		notLoop string // loop type it must not be
	}
	rep := func(n int, task, status string, blockers, work []string) []Attempt {
		var as []Attempt
		for i := range n {
			as = append(as, att(task, status, i, blockers, work))
		}
		return as
	}
	dashWork := []string{"Implemented dashboard.tsx", "Added tests"}
	spin := []string{"critic:design_system unavailable", "missing auth"}
	noAuto := func(c *TaskConfig) { c.EnableAutoUnblock = false }
	tests := []struct {
		name     string
		cfg      TaskConfig
		attempts []Attempt
		task     string
		want     want
	}{
		// Pattern 1: Completed Task Revisit
		{"should detect when autopilot revisits a completed task", tsConfig(nil),
			rep(4, "T3.4.2", "done", nil, dashWork), "T3.4.2",
			want{looping: true, loop: LoopCompletedTaskRevisit, count: 4, rec: RecommendForceNext}},
		{"should not detect loop with only 2 attempts", tsConfig(nil),
			rep(2, "T3.4.2", "done", nil, []string{"Work done"}), "T3.4.2", want{loop: "none"}},
		{"should not detect loop if status changes between attempts", tsConfig(nil), []Attempt{
			att("T3.4.2", "in_progress", 0, nil, nil), att("T3.4.2", "done", 1, nil, []string{"Work"}),
			att("T3.4.2", "done", 2, nil, []string{"Work"}),
		}, "T3.4.2", want{}},
		// Pattern 2: Blocked Task Spin
		{"should detect when task spins on same blockers", tsConfig(nil),
			rep(3, "T3.4.3", "blocked", spin, nil), "T3.4.3",
			want{looping: true, loop: LoopBlockedTaskSpin, count: 3, rec: RecommendUnblockAuthority}},
		{"should not detect loop if blockers change", tsConfig(nil), []Attempt{
			att("T3.4.3", "blocked", 0, []string{"blocker A"}, nil), att("T3.4.3", "blocked", 1, []string{"blocker B"}, nil),
			att("T3.4.3", "blocked", 2, []string{"blocker C"}, nil),
		}, "T3.4.3", want{}},
		{"should escalate instead of unblock when auto-unblock disabled", tsConfig(noAuto),
			rep(3, "T3.4.3", "blocked", []string{"critic:design_system unavailable"}, nil), "T3.4.3",
			want{looping: true, rec: RecommendEscalate}},
		// Pattern 3: No Progress Repeat
		{"should detect when same work is repeated", tsConfig(nil),
			rep(5, "T7.1.2", "in_progress", nil, []string{"Read config.yaml", "Parse dependencies"}), "T7.1.2",
			want{looping: true, loop: LoopNoProgressRepeat, count: 5, rec: RecommendForceNext}},
		{"should escalate before maxAttemptsBeforeForceNext", tsConfig(nil),
			rep(3, "T7.1.2", "in_progress", nil, []string{"Same work"}), "T7.1.2",
			want{looping: true, rec: RecommendEscalate}},
		{"should not detect loop if work progresses", tsConfig(nil), []Attempt{
			att("T7.1.2", "in_progress", 0, nil, []string{"Work A"}),
			att("T7.1.2", "in_progress", 1, nil, []string{"Work A", "Work B"}),
			att("T7.1.2", "in_progress", 2, nil, []string{"Work A", "Work B", "Work C"}),
		}, "T7.1.2", want{}},
		// Recovery: Force Next / Unblock Authority / Escalate: the
		// recommendation applyRecovery acts on (TestLoopDetectorRecovery
		// checks the clearing).
		{"should mark task as done and add directive", tsConfig(nil),
			rep(4, "T3.4.2", "done", nil, []string{"Work"}), "T3.4.2",
			want{looping: true, rec: RecommendForceNext}},
		{"should grant unblock authority with explicit permissions", tsConfig(nil),
			rep(3, "T3.4.3", "blocked", []string{"critic:design_system unavailable", "missing token"}, nil), "T3.4.3",
			want{looping: true, rec: RecommendUnblockAuthority}},
		{"should escalate and mark task as blocked", tsConfig(noAuto),
			rep(3, "T6.2.3", "blocked", []string{"persistent blocker"}, nil), "T6.2.3",
			want{looping: true, rec: RecommendEscalate, count: 3}},
		// Edge Cases
		{"should handle null currentTaskId", tsConfig(nil), nil, "", want{loop: "none"}},
		{"should handle task with no attempts", tsConfig(nil), nil, "never_attempted_task", want{loop: "none"}},
		{"should handle empty blockers array", tsConfig(nil),
			rep(3, "T1", "blocked", []string{}, nil), "T1", want{looping: true, notLoop: LoopBlockedTaskSpin}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := NewTaskAttempts(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range tt.attempts {
				d.Record(a)
			}
			f, looping := d.Detect(tt.task)
			loop := f.LoopType
			if !looping {
				loop = "none"
			}
			w := tt.want
			if looping != w.looping || (w.loop != "" && loop != w.loop) || (w.count != 0 && f.AttemptCount != w.count) ||
				(w.rec != "" && f.Recommendation != w.rec) || (w.notLoop != "" && loop == w.notLoop) {
				t.Errorf("got looping %v %s count %d %s, want %+v", looping, loop, f.AttemptCount, f.Recommendation, w)
			}
			if looping && f.TaskID != tt.task {
				t.Errorf("task %q, want %q", f.TaskID, tt.task)
			}
		})
	}
}

// TestLoopDetectorRecovery translates the suite's tests of the detector's
// state: clearing after recovery, counts per task, the time window, clear.
func TestLoopDetectorRecovery(t *testing.T) {
	d, _ := NewTaskAttempts(DefaultTaskConfig())
	t.Run("should clear attempt history after recovery", func(t *testing.T) {
		for i := range 4 {
			d.Record(att("T3.4.2", "done", i, nil, []string{"Work"}))
		}
		if _, ok := d.Detect("T3.4.2"); !ok {
			t.Fatal("no loop")
		}
		d.Recover("T3.4.2")
		if n := d.Count("T3.4.2"); n != 0 {
			t.Errorf("%d attempts after recovery", n)
		}
	})
	t.Run("should track attempt counts per task", func(t *testing.T) {
		d.Clear()
		d.Record(att("T1", "in_progress", 0, nil, nil))
		d.Record(att("T1", "in_progress", 1, nil, nil))
		d.Record(att("T2", "blocked", 2, []string{"blocker"}, nil))
		if d.Count("T1") != 2 || d.Count("T2") != 1 {
			t.Errorf("T1 %d, T2 %d; want 2, 1", d.Count("T1"), d.Count("T2"))
		}
	})
	t.Run("should clean old attempts outside time window", func(t *testing.T) {
		d.Clear()
		d.Record(att("T1", "in_progress", -120, nil, nil)) // 2 hours before
		d.Record(att("T1", "in_progress", 0, nil, nil))
		if n := d.Count("T1"); n != 1 {
			t.Errorf("%d attempts, want 1 (only new attempt)", n)
		}
	})
	t.Run("should clear all attempts", func(t *testing.T) {
		d.Record(att("T1", "in_progress", 1, nil, nil))
		d.Record(att("T2", "blocked", 2, []string{"b"}, nil))
		d.Clear()
		if d.Count("T1")+d.Count("T2") != 0 {
			t.Error("attempts left after clear")
		}
	})
}

// TestTaskAttempts replays logs: each attempt recorded, then checked, then
// (attempts_recovery, the default) its task cleared after a firing.
func TestTaskAttempts(t *testing.T) {
	type fire struct {
		attempt int
		task    string
		loop    string
		rec     string
		count   int
	}
	dash := []string{"Implemented dashboard.tsx"}
	critic := []string{"critic:design_system unavailable"}
	work := []string{"Read file A", "Parse config"}
	noRecovery := func(c *TaskConfig) { c.AttemptsRecovery = false }
	tests := []struct {
		name     string
		cfg      TaskConfig
		attempts []Attempt
		want     []fire
	}{
		{"recovery clears: the next firing needs 3 new attempts", tsConfig(nil), []Attempt{
			att("T", "done", 0, nil, dash), att("T", "done", 1, nil, dash), att("T", "done", 2, nil, dash),
			att("T", "done", 3, nil, dash), att("T", "done", 4, nil, dash), att("T", "done", 5, nil, dash),
			att("T", "done", 6, nil, dash),
		}, []fire{
			{3, "T", LoopCompletedTaskRevisit, RecommendForceNext, 3},
			{6, "T", LoopCompletedTaskRevisit, RecommendForceNext, 3},
		}},
		{"without recovery every further attempt fires", tsConfig(noRecovery), []Attempt{
			att("T3.4.3", "blocked", 0, critic, nil), att("T3.4.3", "blocked", 1, critic, nil),
			att("T3.4.3", "blocked", 2, critic, nil), att("T3.4.3", "blocked", 3, critic, nil),
		}, []fire{
			{3, "T3.4.3", LoopBlockedTaskSpin, RecommendUnblockAuthority, 3},
			{4, "T3.4.3", LoopBlockedTaskSpin, RecommendUnblockAuthority, 4},
		}},
		{"no progress reaches force_next at 5 without recovery", tsConfig(noRecovery), []Attempt{
			att("T7.1.2", "in_progress", 0, nil, work), att("T7.1.2", "in_progress", 1, nil, work),
			att("T7.1.2", "in_progress", 2, nil, work), att("T7.1.2", "in_progress", 3, nil, work),
			att("T7.1.2", "in_progress", 4, nil, work),
		}, []fire{
			{3, "T7.1.2", LoopNoProgressRepeat, RecommendEscalate, 3},
			{4, "T7.1.2", LoopNoProgressRepeat, RecommendEscalate, 4},
			{5, "T7.1.2", LoopNoProgressRepeat, RecommendForceNext, 5},
		}},
		{"completed whatever the work, and 'completed' counts as done", tsConfig(nil), []Attempt{
			att("T", "done", 0, nil, []string{"a"}), att("T", "completed", 1, nil, []string{"b"}), att("T", "done", 2, nil, []string{"c"}),
		}, []fire{{3, "T", LoopCompletedTaskRevisit, RecommendForceNext, 3}}},
		{"same blockers spin whatever the status and work", tsConfig(nil), []Attempt{
			att("T", "in_progress", 0, critic, []string{"a"}), att("T", "blocked", 1, critic, []string{"b"}),
			att("T", "needs_review", 2, critic, []string{"c"}),
		}, []fire{{3, "T", LoopBlockedTaskSpin, RecommendUnblockAuthority, 3}}},
		{"no progress whatever the status", tsConfig(nil), []Attempt{
			att("T", "in_progress", 0, nil, work), att("T", "pending", 1, nil, work), att("T", "needs_improvement", 2, nil, work),
		}, []fire{{3, "T", LoopNoProgressRepeat, RecommendEscalate, 3}}},
		{"blockers that change are progress", tsConfig(nil), []Attempt{
			att("T", "blocked", 0, []string{"a"}, work), att("T", "blocked", 1, []string{"b"}, work), att("T", "blocked", 2, []string{"c"}, work),
		}, nil},
		{"work that differs is no loop", tsConfig(nil), []Attempt{
			att("T", "in_progress", 0, nil, []string{"a"}), att("T", "in_progress", 1, nil, []string{"b"}),
			att("T", "in_progress", 2, nil, []string{"c"}),
		}, nil},
		{"lists compare as sort().join(',')", tsConfig(nil), []Attempt{
			att("T", "blocked", 0, []string{"b", "a"}, nil), att("T", "blocked", 1, []string{"a,b"}, nil),
			att("T", "blocked", 2, []string{"a", "b"}, nil),
		}, []fire{{3, "T", LoopBlockedTaskSpin, RecommendUnblockAuthority, 3}}},
		{"an empty blocker string is no blocker", tsConfig(nil), []Attempt{
			att("T", "blocked", 0, []string{""}, nil), att("T", "blocked", 1, nil, nil), att("T", "blocked", 2, []string{""}, nil),
		}, []fire{{3, "T", LoopNoProgressRepeat, RecommendEscalate, 3}}},
		{"judged on the last 3, counted on the window", tsConfig(nil), []Attempt{
			att("T", "in_progress", 0, nil, []string{"A"}), att("T", "in_progress", 1, nil, []string{"A"}),
			att("T", "in_progress", 2, nil, []string{"B"}), att("T", "in_progress", 3, nil, []string{"B"}),
			att("T", "in_progress", 4, nil, []string{"B"}),
		}, []fire{{5, "T", LoopNoProgressRepeat, RecommendForceNext, 5}}},
		{"window: an hour before is out", tsConfig(nil), []Attempt{
			att("T", "done", 0, nil, dash), att("T", "done", 30, nil, dash), att("T", "done", 60, nil, dash),
			att("T", "done", 61, nil, dash),
		}, []fire{{4, "T", LoopCompletedTaskRevisit, RecommendForceNext, 3}}},
		{"window counts back from this attempt, not the latest", tsConfig(nil), []Attempt{
			att("T", "done", 100, nil, dash), att("T", "done", 0, nil, dash), // 100 is kept: later than now
			att("T", "done", 10, nil, dash),
		}, []fire{{3, "T", LoopCompletedTaskRevisit, RecommendForceNext, 3}}},
		{"a dropped attempt stays dropped", tsConfig(nil), []Attempt{
			att("T", "done", 0, nil, dash), att("T", "done", 70, nil, dash), // drops 0
			att("T", "done", 5, nil, dash), att("T", "done", 6, nil, dash),
		}, []fire{{4, "T", LoopCompletedTaskRevisit, RecommendForceNext, 3}}},
		{"attempt numbers count every record", tsConfig(nil), []Attempt{
			att("T1", "done", 0, nil, dash), att("T2", "done", 1, nil, dash), att("T1", "done", 2, nil, dash),
			att("T2", "in_progress", 3, nil, dash), att("T1", "done", 4, nil, dash),
		}, []fire{{5, "T1", LoopCompletedTaskRevisit, RecommendForceNext, 3}}},
		{"an empty task id never fires", tsConfig(nil), []Attempt{
			att("", "done", 0, nil, dash), att("", "done", 1, nil, dash), att("", "done", 2, nil, dash),
		}, nil},
		{"aggressive: max_attempts 2, force next at 2", TaskConfig{MaxAttempts: 2, AttemptWindow: time.Hour,
			EnableAutoUnblock: true, MaxAttemptsBeforeForceNext: 2, AttemptsRecovery: true}, []Attempt{
			att("T", "pending", 0, nil, nil), att("T", "pending", 1, nil, nil), att("T", "pending", 2, nil, nil),
		}, []fire{{2, "T", LoopNoProgressRepeat, RecommendForceNext, 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := NewTaskAttempts(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			var got []fire
			for _, a := range tt.attempts {
				for _, f := range d.Attempt(a) {
					if f.Rule != "task_attempts" || f.Kind != KindLoop || f.Origin != OriginGeneric {
						t.Errorf("firing %+v", f)
					}
					got = append(got, fire{f.Attempt, f.TaskID, f.LoopType, f.Recommendation, f.AttemptCount})
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got  %v\nwant %v", got, tt.want)
			}
		})
	}
}

// refDetector is loop_detector.ts read literally: a list per task,
// refiltered at every record. The linked list and heap must agree with it.
type refDetector struct {
	cfg   TaskConfig
	tasks map[string][]Attempt
}

func (r *refDetector) attempt(a Attempt) (string, string, int) {
	l := append(r.tasks[a.TaskID], a)
	l = slices.DeleteFunc(l, func(x Attempt) bool { return !x.Timestamp.After(a.Timestamp.Add(-r.cfg.AttemptWindow)) })
	r.tasks[a.TaskID] = l
	if a.TaskID == "" || len(l) < r.cfg.MaxAttempts {
		return "", "", 0
	}
	recent := l[len(l)-r.cfg.MaxAttempts:]
	sig := func(xs []string) string {
		c := slices.Clone(xs)
		slices.SortFunc(c, func(a, b string) int { // UTF-16 order, by conversion
			return slices.Compare(utf16Of(a), utf16Of(b))
		})
		return strings.Join(c, ",")
	}
	all := func(f func(Attempt) bool) bool {
		return !slices.ContainsFunc(recent, func(x Attempt) bool { return !f(x) })
	}
	b0, w0 := sig(recent[0].Blockers), sig(recent[0].CompletedWork)
	sameB := all(func(x Attempt) bool { return sig(x.Blockers) == b0 })
	var loop, rec string
	switch {
	case all(func(x Attempt) bool { return x.Status == "done" || x.Status == "completed" }):
		loop, rec = LoopCompletedTaskRevisit, RecommendForceNext
	case sameB && b0 != "":
		loop, rec = LoopBlockedTaskSpin, RecommendUnblockAuthority
		if !r.cfg.EnableAutoUnblock {
			rec = RecommendEscalate
		}
	case sameB && all(func(x Attempt) bool { return sig(x.CompletedWork) == w0 }):
		loop, rec = LoopNoProgressRepeat, RecommendEscalate
		if len(l) >= r.cfg.MaxAttemptsBeforeForceNext {
			rec = RecommendForceNext
		}
	default:
		return "", "", 0
	}
	n := len(l)
	if r.cfg.AttemptsRecovery {
		delete(r.tasks, a.TaskID)
	}
	return loop, rec, n
}

func utf16Of(s string) []uint16 {
	var u []uint16
	for _, r := range s {
		if r >= 0x10000 {
			r -= 0x10000
			u = append(u, uint16(0xD800+(r>>10)), uint16(0xDC00+(r&0x3FF)))
		} else {
			u = append(u, uint16(r))
		}
	}
	return u
}

// TestTaskAttemptsMatchesReference replays random logs, timestamps out of
// order included, through both.
func TestTaskAttemptsMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"a", "b", "a,b", "", "\uffff", "😀", "x"}
	statuses := []string{"done", "completed", "blocked", "in_progress", "pending"}
	list := func() []string {
		var l []string
		for range rng.IntN(3) {
			l = append(l, words[rng.IntN(len(words))])
		}
		return l
	}
	for round := range 300 {
		cfg := TaskConfig{MaxAttempts: 2 + rng.IntN(3), AttemptWindow: time.Duration(1+rng.IntN(30)) * time.Minute,
			EnableAutoUnblock: rng.IntN(2) == 0, MaxAttemptsBeforeForceNext: 1 + rng.IntN(6), AttemptsRecovery: rng.IntN(2) == 0}
		d, _ := NewTaskAttempts(cfg)
		ref := &refDetector{cfg: cfg, tasks: map[string][]Attempt{}}
		minute := 0
		for i := range 400 {
			minute += rng.IntN(5)
			if rng.IntN(10) == 0 {
				minute -= rng.IntN(40) // out of order
			}
			a := att([]string{"A", "B", ""}[rng.IntN(3)], statuses[rng.IntN(len(statuses))], minute, list(), list())
			loop, rec, n := ref.attempt(a)
			fs := d.Attempt(a)
			got := ""
			if len(fs) == 1 {
				got = fmt.Sprint(fs[0].LoopType, fs[0].Recommendation, fs[0].AttemptCount)
			}
			want := ""
			if loop != "" {
				want = fmt.Sprint(loop, rec, n)
			}
			if got != want {
				t.Fatalf("round %d attempt %d (%+v, %+v): got %q, want %q", round, i+1, cfg, a, got, want)
			}
		}
	}
}

func TestCompareUTF16(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"a", "b", -1}, {"b", "a", 1}, {"a", "a", 0}, {"a", "ab", -1},
		{"😀", "\uffff", -1}, // U+D83D first: before U+FFFF in JavaScript
		{"\ue000", "😀", 1}, {"😀", "😁", -1}, {"é", "z", 1},
	}
	for _, tt := range tests {
		got := compareUTF16(tt.a, tt.b)
		if (got > 0) != (tt.want > 0) || (got < 0) != (tt.want < 0) {
			t.Errorf("compareUTF16(%q, %q) = %d, want sign %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestTaskConfigValidate(t *testing.T) {
	bad := []TaskConfig{
		{MaxAttempts: 1, AttemptWindow: time.Hour, MaxAttemptsBeforeForceNext: 5},
		{MaxAttempts: 3, AttemptWindow: 0, MaxAttemptsBeforeForceNext: 5},
		{MaxAttempts: 3, AttemptWindow: time.Hour, MaxAttemptsBeforeForceNext: 0},
	}
	for _, c := range bad {
		if _, err := NewTaskAttempts(c); err == nil {
			t.Errorf("%+v accepted", c)
		}
	}
}

// benchmarkOneTask replays n attempts at one task, all in the window and
// none firing (the work grows), so every attempt is judged on a long list.
func benchmarkOneTask(b *testing.B, n int) {
	as := make([]Attempt, n)
	for i := range as {
		as[i] = Attempt{TaskID: "T", Status: "in_progress", CompletedWork: []string{fmt.Sprint(i)},
			Timestamp: t0.Add(time.Duration(i) * time.Millisecond)}
	}
	b.ResetTimer()
	for range b.N {
		d, _ := NewTaskAttempts(DefaultTaskConfig())
		for _, a := range as {
			d.Attempt(a)
		}
	}
}

// BenchmarkTaskAttemptsOneTask shows linear scaling: 8x the attempts
// should cost about 8x the time (it was quadratic: issue 23 item 7).
func BenchmarkTaskAttemptsOneTask(b *testing.B) {
	for _, n := range []int{12500, 100000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) { benchmarkOneTask(b, n) })
	}
}

// TestJSSortJoinReused: a list joined again, in a slice of its own or
// the same slice written over, joins as it reads now, not as it was
// joined before; the firing slice is reused from call to call.
func TestJSSortJoinReused(t *testing.T) {
	d, _ := NewTaskAttempts(DefaultTaskConfig())
	l := []string{"b", "a"}
	for i, tt := range []struct {
		in   []string
		want string
	}{
		{l, "a,b"}, {[]string{"b", "a"}, "a,b"}, {[]string{"a", "b", "c"}, "a,b,c"},
		{[]string{"c", "d"}, "c,d"}, {[]string{"e", "f"}, "e,f"}, {[]string{"g", "h"}, "g,h"}, {l, "a,b"},
	} {
		if got := d.jsSortJoin(tt.in); got != tt.want {
			t.Errorf("%d: %q, want %q", i, got, tt.want)
		}
	}
	l[0] = "z" // the caller's slice written over
	if got := d.jsSortJoin(l); got != "a,z" {
		t.Errorf("after a write: %q, want a,z", got)
	}
	if got := d.jsSortJoin(nil); got != "" {
		t.Errorf("nil: %q", got)
	}
}

// BenchmarkTaskAttempts: an autopilot's log, four tasks in turn, each
// with the same blockers or work attempt after attempt, a minute apart
// (the generated attempts logs' shape): ns/op per attempt.
func BenchmarkTaskAttempts(b *testing.B) {
	var as []Attempt
	tasks := []Attempt{
		{TaskID: "auth", Status: "blocked", Blockers: []string{"missing STRIPE_API_KEY"}},
		{TaskID: "docs", Status: "done", CompletedWork: []string{"README updated"}},
		{TaskID: "tests", Status: "in_progress", CompletedWork: []string{"wrote fixtures"}},
		{TaskID: "deploy", Status: "blocked", Blockers: []string{"no credentials", "CI red"}},
	}
	for i := range 4096 {
		a := tasks[i%len(tasks)]
		a.SessionID = fmt.Sprintf("s%d", i/16)
		a.Timestamp = t0.Add(time.Duration(i) * time.Minute)
		as = append(as, a)
	}
	d, _ := NewTaskAttempts(DefaultTaskConfig())
	i := 0
	for b.Loop() {
		if i == len(as) {
			d.Clear()
			i = 0
		}
		d.Attempt(as[i])
		i++
	}
}

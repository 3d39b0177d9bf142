package analyze

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// progressedAfterNaive is the definition read literally: scan every later
// attempt at the task.
func progressedAfterNaive(as []replay.Attempt, n int) bool {
	a := as[n-1]
	for _, b := range as[n:] {
		if b.TaskID != a.TaskID {
			continue
		}
		if b.Status == "done" && a.Status != "done" {
			return true
		}
		for _, w := range b.CompletedWork {
			if !slices.Contains(a.CompletedWork, w) {
				return true
			}
		}
	}
	return false
}

func TestAlarmJudgeAttempts(t *testing.T) {
	at := func(task, status string, work ...string) replay.Attempt {
		return replay.Attempt{TaskID: task, Status: status, CompletedWork: work}
	}
	tests := []struct {
		name     string
		attempts []replay.Attempt
		want     []bool
	}{
		{"new work later is progress", []replay.Attempt{at("T", "in_progress", "a"), at("T", "in_progress", "a", "b")}, []bool{true, false}},
		{"the same or less work is not", []replay.Attempt{at("T", "in_progress", "a", "b"), at("T", "in_progress", "b"), at("T", "blocked", "a", "b")}, []bool{false, true, false}},
		{"done later is progress unless done", []replay.Attempt{at("T", "blocked"), at("T", "done"), at("T", "done")}, []bool{true, false, false}},
		{"other tasks do not count", []replay.Attempt{at("T", "blocked"), at("U", "done", "x")}, []bool{false, false}},
		{"work duplicated in a list", []replay.Attempt{at("T", "in_progress", "a", "a"), at("T", "in_progress", "a", "b")}, []bool{true, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ep := &replay.Episode{Format: replay.FormatAttempts}
			ep.AppendAttempts(tt.attempts...)
			judge, basis := AlarmJudge(ep)
			if basis != BasisTaskProgress {
				t.Fatalf("basis %q", basis)
			}
			var got []bool
			for n := 1; n <= len(tt.attempts); n++ {
				got = append(got, judge(n))
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) || judge(0) || judge(len(tt.attempts)+1) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestAlarmJudgeAttemptsMatchesNaive checks the single pass against the
// definition on random logs.
func TestAlarmJudgeAttemptsMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	statuses := []string{"done", "blocked", "in_progress"}
	for round := range 200 {
		as := make([]replay.Attempt, 1+rng.IntN(40))
		for i := range as {
			var work []string
			for range rng.IntN(4) {
				work = append(work, string(rune('a'+rng.IntN(4))))
			}
			as[i] = replay.Attempt{TaskID: string(rune('A' + rng.IntN(3))), Status: statuses[rng.IntN(3)], CompletedWork: work}
		}
		judge, _ := AlarmJudge(attemptsEpisode(as))
		for n := 1; n <= len(as); n++ {
			if got, want := judge(n), progressedAfterNaive(as, n); got != want {
				t.Fatalf("round %d attempt %d: %v, want %v (%+v)", round, n, got, want, as)
			}
		}
	}
}

// BenchmarkAlarmJudgeOneTask judges every attempt of one task: linear in
// attempts (it was a scan of every later attempt per firing).
func BenchmarkAlarmJudgeOneTask(b *testing.B) {
	for _, n := range []int{12500, 100000} {
		as := make([]replay.Attempt, n)
		t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
		for i := range as {
			as[i] = replay.Attempt{TaskID: "T", Status: "blocked", Blockers: []string{"x"}, CompletedWork: []string{"w"},
				Timestamp: t0.Add(time.Duration(i) * time.Second)}
		}
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for range b.N {
				judge, _ := AlarmJudge(attemptsEpisode(as))
				for i := 1; i <= n; i++ {
					judge(i)
				}
			}
		})
	}
}

// refTasksProgressed is tasksProgressed as it was (commit 645adfd): a
// map per task and one per attempt with work.
func refTasksProgressed(attempts []replay.Attempt) []bool {
	type later struct {
		work map[string]struct{}
		done bool
	}
	tasks := map[string]*later{}
	out := make([]bool, len(attempts))
	for i := len(attempts) - 1; i >= 0; i-- {
		a := &attempts[i]
		l := tasks[a.TaskID]
		if l == nil {
			l = &later{work: map[string]struct{}{}}
			tasks[a.TaskID] = l
		}
		p := l.done && a.Status != "done"
		if !p && len(l.work) > 0 {
			p = len(l.work) > len(a.CompletedWork)
			if !p {
				mine := make(map[string]struct{}, len(a.CompletedWork))
				for _, w := range a.CompletedWork {
					mine[w] = struct{}{}
				}
				for w := range l.work {
					if _, ok := mine[w]; !ok {
						p = true
						break
					}
				}
			}
		}
		out[i] = p
		for _, w := range a.CompletedWork {
			l.work[w] = struct{}{}
		}
		l.done = l.done || a.Status == "done"
	}
	return out
}

// TestTasksProgressedMatchesReference compares tasksProgressed with the
// reference on random attempt logs: few tasks and works, short and long
// (past the linear search) work lists with repeats.
func TestTasksProgressedMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 7))
	statuses := []string{"done", "blocked", "in_progress", "completed"}
	progressed := 0
	for range 2000 {
		attempts := make([]replay.Attempt, r.IntN(30))
		for i := range attempts {
			a := &attempts[i]
			a.TaskID = fmt.Sprint("t", r.IntN(3))
			a.Status = statuses[r.IntN(len(statuses))]
			n := r.IntN(4)
			if r.IntN(5) == 0 {
				n = 9 + r.IntN(6)
			}
			for range n {
				a.CompletedWork = append(a.CompletedWork, fmt.Sprint("w", r.IntN(12)))
			}
		}
		got, want := tasksProgressed(len(attempts), func(i int) (string, string, []string) {
			a := &attempts[i]
			return a.TaskID, a.Status, a.CompletedWork
		}), refTasksProgressed(attempts)
		if !slices.Equal(got, want) {
			t.Fatalf("%+v:\ngot  %v\nwant %v", attempts, got, want)
		}
		for _, p := range got {
			progressed += b2i(p)
		}
	}
	if progressed == 0 {
		t.Error("no attempt progressed")
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// attemptsEpisode is an attempts log's episode of those attempts.
func attemptsEpisode(as []replay.Attempt) *replay.Episode {
	ep := &replay.Episode{Format: replay.FormatAttempts}
	ep.AppendAttempts(as...)
	return ep
}

// TestOutcomeAlarmJudgeShared: an attempts log's outcome keeps the pass
// its judge made over the attempts, and its AlarmJudge (the report's)
// answers from it, as AlarmJudge does from a pass of its own.
func TestOutcomeAlarmJudgeShared(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 9))
	var as []replay.Attempt
	start := time.Date(2025, 11, 14, 8, 0, 0, 0, time.UTC)
	for i := range 400 {
		a := replay.Attempt{TaskID: fmt.Sprint("t", r.IntN(4)), Status: []string{"blocked", "done", "in_progress"}[r.IntN(3)], Timestamp: start.Add(time.Duration(i) * time.Minute)}
		if r.IntN(3) == 0 {
			a.CompletedWork = []string{fmt.Sprint("w", r.IntN(5))}
		}
		as = append(as, a)
	}
	ep := attemptsEpisode(as)
	ep.Turns = make([]replay.Turn, len(as))
	for i := range ep.Turns {
		ep.Turns[i].N = i + 1
	}
	o := Analyze(ep, rules.Default(), Options{KeepFirings: true})
	if len(o.Firings) == 0 || o.progressed == nil {
		t.Fatalf("%d firings, progressed %v: the outcome judged none", len(o.Firings), o.progressed != nil)
	}
	shared, basis := o.AlarmJudge(ep)
	own, ownBasis := AlarmJudge(ep)
	for n := 0; n <= len(as)+1; n++ {
		if shared(n) != own(n) || basis != ownBasis {
			t.Fatalf("attempt %d: the outcome's judge says %v (%s), AlarmJudge %v (%s)", n, shared(n), basis, own(n), ownBasis)
		}
	}
	for i := range o.progressed {
		o.progressed[i] = !o.progressed[i]
	}
	if shared(1) == own(1) {
		t.Error("the outcome's judge does not answer from the outcome's pass")
	}
}

// TestOutcomeScoreJudgeShared: a scored log's outcome keeps its turns
// judged (scoreRose), and its AlarmJudge answers from them as AlarmJudge
// does from its own, judging them again when the episode has grown.
func TestOutcomeScoreJudgeShared(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 21))
	cut := 0 // episodes whose judge changed with its bits cleared
	for range 200 {
		ep := &replay.Episode{Format: replay.FormatSteps, HasScore: true}
		o := &Outcome{}
		for grow := range 3 {
			for range 1 + r.IntN(30) {
				ep.Turns = append(ep.Turns, replay.Turn{N: len(ep.Turns) + 5, Score: float64(r.IntN(5))})
			}
			shared, basis := o.AlarmJudge(ep)
			again, _ := o.AlarmJudge(ep)
			own, ownBasis := AlarmJudge(ep)
			if basis != ownBasis || basis != BasisScore {
				t.Fatalf("basis %q, AlarmJudge's %q", basis, ownBasis)
			}
			for n := 0; n <= len(ep.Turns)+6; n++ {
				if shared(n) != own(n) || again(n) != own(n) {
					t.Fatalf("growth %d, turn %d of %d: the outcome's judge says %v then %v, AlarmJudge %v", grow, n, len(ep.Turns), shared(n), again(n), own(n))
				}
			}
		}
		// It answers from the outcome's bits: with none set, some turn
		// below a higher later score is judged not so.
		if slices.ContainsFunc(o.rose, func(w uint64) bool { return w != 0 }) {
			o.rose = make([]uint64, len(o.rose))
			shared, _ := o.AlarmJudge(ep)
			own, _ := AlarmJudge(ep)
			for n := 0; n <= len(ep.Turns)+6; n++ {
				if shared(n) != own(n) {
					cut++
					break
				}
			}
		}
	}
	if cut == 0 {
		t.Fatal("no outcome's judge changed with its bits cleared: it does not answer from them")
	}
}

// TestTasksProgressedSharedLists compares tasksProgressed with the
// reference where an episode's lists are shared between its attempts
// and its task ids interned (the answers kept per list, the tasks found
// by address), and where the same ids and lists come as copies (found
// by their bytes): up to 14 tasks (past the scan of scanTasks), lists
// from a pool of a few, short and long (past smallWork), growing unions.
func TestTasksProgressedSharedLists(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 12))
	statuses := []string{"done", "blocked", "in_progress"}
	progressed, memoed := 0, 0
	for round := range 600 {
		pool := make([][]string, 1+r.IntN(6))
		for i := range pool {
			n := r.IntN(4)
			if r.IntN(4) == 0 {
				n = 9 + r.IntN(8)
			}
			for range n {
				pool[i] = append(pool[i], fmt.Sprint("w", r.IntN(10+r.IntN(20))))
			}
		}
		// Task ids are prefixes of one string: ids of one address and
		// other lengths are other tasks.
		const ids = "abcdefghijklmn"
		tasks := 1 + r.IntN(len(ids))
		attempts := make([]replay.Attempt, r.IntN(80))
		for i := range attempts {
			attempts[i] = replay.Attempt{TaskID: ids[:1+r.IntN(tasks)], Status: statuses[r.IntN(len(statuses))],
				CompletedWork: pool[r.IntN(len(pool))]}
		}
		want := refTasksProgressed(attempts)
		ep := attemptsEpisode(attempts)
		if got := tasksProgressed(ep.NumAttempts(), ep.AttemptWork); !slices.Equal(got, want) {
			t.Fatalf("round %d, the episode's attempts %+v:\ngot  %v\nwant %v", round, attempts, got, want)
		}
		copied := tasksProgressed(len(attempts), func(i int) (string, string, []string) {
			a := &attempts[i]
			if r.IntN(2) == 0 {
				return strings.Clone(a.TaskID), a.Status, slices.Clone(a.CompletedWork)
			}
			return a.TaskID, a.Status, a.CompletedWork
		})
		if !slices.Equal(copied, want) {
			t.Fatalf("round %d, copies of %+v:\ngot  %v\nwant %v", round, attempts, copied, want)
		}
		for i, p := range want {
			progressed += b2i(p)
			if i+1 < len(attempts) && attempts[i].TaskID == attempts[i+1].TaskID {
				memoed++
			}
		}
	}
	if progressed == 0 || memoed == 0 {
		t.Errorf("%d attempts progressed, %d followed one at their task", progressed, memoed)
	}
}

// TestScoreMemoAsJudge holds the outcome's score judges, which answer
// from the bits the outcome keeps (scoreRose), to AlarmJudge's: turns
// asked at random and repeated, by two judges in turn as the outcome and
// the report ask, and the turn asked last asked again first once the
// episode grew (a higher score after it may change its answer).
func TestScoreMemoAsJudge(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 59))
	changed := 0
	for range 300 {
		ep := &replay.Episode{Format: replay.FormatSteps, HasScore: true}
		o := &Outcome{}
		last := -1
		for range 4 {
			for range 1 + r.IntN(20) {
				ep.Turns = append(ep.Turns, replay.Turn{N: len(ep.Turns) + 1, Score: float64(r.IntN(6))})
			}
			a, _ := o.AlarmJudge(ep)
			b, _ := o.AlarmJudge(ep)
			own, _ := AlarmJudge(ep)
			if last >= 0 {
				if a(last) != own(last) {
					t.Fatalf("turn %d, asked again after the episode grew to %d turns: %v, AlarmJudge %v", last, len(ep.Turns), a(last), own(last))
				}
			}
			for range 60 {
				n := r.IntN(len(ep.Turns) + 3)
				if r.IntN(3) == 0 && last >= 0 {
					n = last
				}
				if a(n) != own(n) || b(n) != own(n) {
					t.Fatalf("turn %d of %d: the outcome's judges say %v and %v, AlarmJudge %v", n, len(ep.Turns), a(n), b(n), own(n))
				}
				last = n
			}
			before := own(last)
			ep.Turns = append(ep.Turns, replay.Turn{N: len(ep.Turns) + 1, Score: 9})
			if own, _ := AlarmJudge(ep); own(last) != before {
				changed++
			}
			ep.Turns = ep.Turns[:len(ep.Turns)-1]
		}
	}
	if changed == 0 {
		t.Error("no answer changed with a higher score after it")
	}
}

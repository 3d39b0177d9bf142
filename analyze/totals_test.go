package analyze

import (
	"math"
	"reflect"
	"sort"
	"testing"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// TestTotalsMedian holds the histogram median to the median of the sorted
// list of turns saved; episodes never terminated do not count.
func TestTotalsMedian(t *testing.T) {
	for _, xs := range [][]int{{}, {5}, {1, 2}, {3, 1, 2}, {4, 4, 1, 9}, {7, 7, 7, 7, 0, 100}} {
		var tot Totals
		for _, x := range xs {
			tot.Add(&Result{Terminated: true, TurnsSaved: x}, 200, 0)
			tot.Add(&Result{}, 100, 1)
		}
		tot.Finish()
		s := append([]int(nil), xs...)
		sort.Ints(s)
		want := 0.0
		if n := len(s); n%2 == 1 {
			want = float64(s[n/2])
		} else if n > 0 {
			want = float64(s[n/2-1]+s[n/2]) / 2
		}
		if tot.MedianTurnsSaved != want {
			t.Errorf("median of %v = %v, want %v", xs, tot.MedianTurnsSaved, want)
		}
		if tot.Episodes != 2*len(xs) || tot.Terminated != len(xs) || tot.RecordedTurns != 300*len(xs) || tot.LinesSkipped != len(xs) {
			t.Errorf("%v: totals %+v", xs, tot)
		}
	}
}

func TestTotalsFigures(t *testing.T) {
	var tot Totals
	tot.Add(&Result{Terminated: true, TurnsSaved: 40, LLMCallsSaved: 160, ScoreForfeited: 5, FalseTermination: true, Warnings: 3, WouldReject: 2}, 100, 0)
	tot.Add(&Result{Terminated: true, TurnsSaved: 20, LLMCallsSaved: 80}, 100, 0)
	tot.Add(&Result{Censored: true, Warnings: 1}, 200, 4)
	tot.Finish()
	want := Totals{Episodes: 3, Terminated: 2, Censored: 1, RecordedTurns: 400, TurnsSaved: 60, TurnsSavedPct: 15,
		LLMCallsSaved: 240, FalseTerminations: 1, FalseRatePct: 50, ScoreForfeited: 5, MedianTurnsSaved: 30,
		Warnings: 4, WouldReject: 2, LinesSkipped: 4}
	tot.saved = nil
	if !reflect.DeepEqual(tot, want) {
		t.Errorf("totals\n got %+v\nwant %+v", tot, want)
	}
}

// TestTailReuse settles a long episode and then a short one with the same
// Tail: the scratch space of the first must not leak into the second.
func TestTailReuse(t *testing.T) {
	long := withRows(&replay.Episode{}, ocEdit(ocScore(ocFlat(1, 100, 0), 90, 100, 5), 1, 100, func(t *replay.Row) { t.Rejections = 1 }))
	short := withRows(&replay.Episode{}, ocFlat(1, 50, 0))
	var tail Tail
	tail.Reset(long)
	r := tail.Result(Fired{Termination: &Termination{Turn: 40}})
	if !r.FalseTermination || r.ProgressAfter != (Progress{90, 5}) || r.TurnsSaved != 60 || r.LLMCallsSaved != 4*60+2*60 {
		t.Errorf("long: %+v", r)
	}
	tail.Reset(short)
	r = tail.Result(Fired{Termination: &Termination{Turn: 40}, Warnings: 2})
	want := Result{Terminated: true, TerminationTurn: 40, TurnsSaved: 10, LLMCallsSaved: 40, Warnings: 2}
	if r != want {
		t.Errorf("short: %+v, want %+v", r, want)
	}
}

// Scores near the float64 limit are legal: their sums stay finite and
// are flagged, so JSON output and baselines never meet +Inf.
func TestTotalsOverflow(t *testing.T) {
	var tot Totals
	tot.Add(&Result{Terminated: true, ScoreForfeited: 1.7e308}, 10, 0)
	for _, f := range []float64{1.7e308, math.Inf(1)} {
		tot.Add(&Result{Terminated: true, ScoreForfeited: f}, 10, 0)
		if tot.ScoreForfeited != math.MaxFloat64 || !tot.ScoreOverflow {
			t.Fatalf("after %g: %g, overflow %v", f, tot.ScoreForfeited, tot.ScoreOverflow)
		}
	}
	var ok Totals
	ok.Add(&Result{Terminated: true, ScoreForfeited: 5}, 10, 0)
	if ok.ScoreOverflow {
		t.Error("5 flagged as overflow")
	}
}

// A Tail reads its first termination off the turns and later ones off
// suffix sums: both give the same result at every turn.
func TestTailFirstAndLaterTerminations(t *testing.T) {
	rows := ocFlat(1, 60, 0)
	for i := range rows {
		rows[i].Score = float64((i * 7) % 11) // rises and falls
		rows[i].LLMCalls, rows[i].Rejections = int32(i%4), int32(i%3)
	}
	for _, logged := range []bool{false, true} {
		ep := withRows(&replay.Episode{LLMCallsLogged: logged, TailLLMCalls: 2, TailRejections: 1}, rows)
		var warm Tail
		warm.Reset(ep)
		warm.Result(Fired{Termination: &Termination{Turn: 1}}) // the next ones use the sums
		for turn := 1; turn <= 60; turn++ {
			f := Fired{Termination: &Termination{Turn: turn, Score: ep.Turn(turn).Score}}
			var fresh Tail
			fresh.Reset(ep)
			if a, b := fresh.Result(f), warm.Result(f); a != b {
				t.Errorf("logged %v, turn %d: first %+v, later %+v", logged, turn, a, b)
			}
		}
	}
}

// AlarmJudge's false alarm is a later turn scoring higher than the
// firing's turn, whatever the shape of the scores.
func TestAlarmJudgeScores(t *testing.T) {
	for seed := range 50 {
		rows := ocFlat(5, 5+seed, 0)
		for i := range rows {
			rows[i].Score = float64((i*(seed+3) + seed*seed) % 7)
		}
		ep := withRows(&replay.Episode{}, rows)
		judge, basis := AlarmJudge(ep)
		if basis != BasisScore {
			t.Fatalf("basis %q", basis)
		}
		for n := 3; n <= 7+seed; n++ {
			want := false
			for _, r := range rows {
				if n >= 5 && r.N > n && r.Score > rows[n-5].Score {
					want = true
				}
			}
			if got := judge(n); got != want {
				t.Errorf("seed %d, turn %d: %v, want %v", seed, n, got, want)
			}
		}
	}
}

// A story's runs are numbered in the order they start, across the chunks
// they are kept in, and come out in that order.
func TestStoryRunChunks(t *testing.T) {
	b := newStoryBuilder(&Outcome{})
	for i := range 5000 {
		if n := b.newRun(Run{From: i}); n != i {
			t.Fatalf("run %d numbered %d", i, n)
		}
	}
	for _, i := range []int{0, 3, 4, 11, 12, 1019, 1020, 2043, 2044, 4999} {
		if r := b.run(i); r.From != i {
			t.Errorf("run(%d) is run %d", i, r.From)
		}
	}
	s := b.finish(withRows(&replay.Episode{}, ocFlat(1, 2, 0)), rules.Default())
	for i, r := range s.Runs {
		if r.From != i {
			t.Fatalf("Runs[%d] is run %d", i, r.From)
		}
	}
	if len(s.Runs) != 5000 {
		t.Errorf("%d runs", len(s.Runs))
	}
}

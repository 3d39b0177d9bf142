package analyze

import (
	"math"
	"reflect"
	"sort"
	"testing"

	"github.com/loopbreak/loopbreak/replay"
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

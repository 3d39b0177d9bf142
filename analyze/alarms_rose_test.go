package analyze

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/loopbreak/loopbreak/replay"
)

// scoreJudgeRef is the score judge as first written: the first turn
// after turn n whose score is above every later turn's (a peak) is found
// by a search of the peaks, and the firing is a false alarm when its
// score is above turn n's.
func scoreJudgeRef(ep *replay.Episode) func(n int) bool {
	var peaks []int
	for i := len(ep.Turns) - 1; i >= 0; i-- {
		if len(peaks) == 0 || ep.Turns[i].Score > ep.Turns[peaks[len(peaks)-1]].Score {
			peaks = append(peaks, i)
		}
	}
	slices.Reverse(peaks)
	return func(n int) bool {
		i := n - ep.Turns[0].N
		if i < 0 || i+1 >= len(ep.Turns) {
			return false
		}
		k, _ := slices.BinarySearch(peaks, i+1)
		return ep.Turns[peaks[k]].Score > ep.Turns[i].Score
	}
}

// TestScoreRoseAsPeaks holds the score judge's bits (scoreRose) to the
// search of the peaks: scores that rise, fall, repeat, and are NaN or
// infinite (the last turn's too), episodes of every length to 200 (past
// three words) whose turns start at any number, turns asked before the
// first, at each, and past the last, by AlarmJudge and an outcome's.
func TestScoreRoseAsPeaks(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 14))
	odd := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, -1}
	rose := 0
	for round := range 2000 {
		n := 1 + r.IntN(40)
		if round%4 == 0 {
			n = 1 + r.IntN(200)
		}
		first := r.IntN(5) - 1
		ep := &replay.Episode{Format: replay.FormatSteps, HasScore: true, Turns: make([]replay.Turn, n)}
		for i := range ep.Turns {
			ep.Turns[i].N = first + i
			ep.Turns[i].Score = float64(r.IntN(6))
			if r.IntN(3) == 0 {
				ep.Turns[i].Score = float64(i) // rising
			}
			if r.IntN(8) == 0 {
				ep.Turns[i].Score = odd[r.IntN(len(odd))]
			}
		}
		want := scoreJudgeRef(ep)
		got, basis := AlarmJudge(ep)
		shared, _ := (&Outcome{}).AlarmJudge(ep)
		if basis != BasisScore {
			t.Fatalf("basis %q", basis)
		}
		for k := first - 70; k <= first+n+70; k++ {
			w := want(k)
			if got(k) != w || shared(k) != w {
				t.Fatalf("scores %v, turn %d: %v (the outcome's %v), want %v", ep.Turns, k, got(k), shared(k), w)
			}
			if w {
				rose++
			}
		}
	}
	if rose == 0 {
		t.Fatal("no turn judged a false alarm")
	}
}

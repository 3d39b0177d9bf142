package detect

import (
	"math/rand/v2"
	"testing"
)

// pushRunsPlain is pushRuns as it was: e compared with the last event and
// with the one two back, each time.
func pushRunsPlain(r *mirror[*OpenHandsEvent], e *OpenHandsEvent, run, alt int) (int, int) {
	b := r.window()
	if n := len(b); n > 0 && sameKey(b[n-1], e) {
		run++
	} else {
		run = 1
	}
	if n := len(b); n > 1 && sameKey(b[n-2], e) {
		alt++
	} else {
		alt = 0
	}
	r.push(e)
	return run, alt
}

// TestOpenHandsPushRuns holds pushRuns, which skips the compare with the
// event two back when the run before answers it, to pushRunsPlain over
// random streams of few distinct events (runs and alternations of every
// length), under rings of 2 to 7, emptied now and then as reset does.
func TestOpenHandsPushRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 11))
	events := []OpenHandsEvent{{Class: OHOtherAction, Key: "a"}, {Class: OHOtherAction, Key: "b"},
		{Class: OHAgentMessage, Key: "a"}, {Class: OHOtherAction, Key: "ab"}, {Class: OHOtherAction, Key: "a"}}
	held := map[[2]bool]int{}
	for round := range 500 {
		c := 2 + rng.IntN(6)
		got, want := newMirror[*OpenHandsEvent](c), newMirror[*OpenHandsEvent](c)
		var run, alt, wrun, walt int
		cycle := make([]int, 1+rng.IntN(3))
		for i := range cycle {
			cycle[i] = rng.IntN(len(events))
		}
		for i := range 200 {
			e := &events[cycle[i%len(cycle)]]
			if rng.IntN(6) == 0 {
				e = &events[rng.IntN(len(events))]
			}
			if rng.IntN(50) == 0 {
				got.reset()
				want.reset()
				run, alt, wrun, walt = 0, 0, 0, 0
			}
			run, alt = pushRuns(&got, e, run, alt)
			wrun, walt = pushRunsPlain(&want, e, wrun, walt)
			if run != wrun || alt != walt {
				t.Fatalf("round %d (ring of %d) event %d %+v: run %d alt %d, plain %d %d", round, c, i, *e, run, alt, wrun, walt)
			}
			held[[2]bool{run >= 2, alt >= 2}]++
		}
	}
	if len(held) < 4 {
		t.Fatalf("the streams held too few kinds of runs: %v", held)
	}
}

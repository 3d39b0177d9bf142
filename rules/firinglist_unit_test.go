package rules

import (
	"math/rand/v2"
	"testing"
)

// TestNextOverUnit holds FiringIter's unit (Finish's) to the plain
// reading it replaces, Next and then f.Unit set: each firing read over the
// one before carries the iterator's unit over the one recorded, or the
// recorded one (or "") with no unit; firings that set few fields, many,
// or fewer than the one before (NextOver's clearing path), some recording
// a unit, the unit changed between reads as a report may change it.
func TestNextOverUnit(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 13))
	for round := range 40 {
		var l FiringList
		var fs []Firing
		for range 1 + rng.IntN(600) {
			f := Firing{Turn: rng.IntN(1 << 20), Rule: SignatureRepeat, Kind: SignatureLoop}
			if rng.IntN(2) == 0 {
				f.Signature = "sig"
			}
			if rng.IntN(3) == 0 {
				f.Rule, f.Kind, f.Cause, f.TurnsStuck, f.Score = ProgressVelocity, Reset, "score_change", rng.IntN(9), 3
			}
			if rng.IntN(4) == 0 {
				f.Unit = []string{UnitTurn, UnitStep, "other"}[rng.IntN(3)]
			}
			fs = append(fs, f)
			l.Add(&f, 0)
		}
		unit := []string{"", UnitStep, UnitAttempt}[round%3]
		var f Firing
		it := l.Iter()
		it.unit = unit
		i := 0
		for ; it.NextOver(&f); i++ {
			want := fs[i]
			if unit != "" {
				want.Unit = unit
			}
			if f != want {
				t.Fatalf("round %d, firing %d (unit %q):\n got %+v\nwant %+v", round, i, unit, f, want)
			}
			f.Unit = "changed by the report"
		}
		if i != len(fs) {
			t.Fatalf("round %d: read %d firings, added %d", round, i, len(fs))
		}
	}
}

package rules

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestAddBareAsAdd holds FiringList.AddBare, AddMatch, AddSignature and
// AddCause to Add of the same firing (AddMatch's with a similarity zero,
// minus zero, NaN, and a matched step zero, negative, long; AddCause's
// with each of its fields zero or not, the score minus zero and NaN; a
// signature or cause empty, or one of 200, an index of two bytes):
// the same bytes, block for block, among firings that set fields, for
// turns around 0 and 2^32 (negative and long ones go through Add) and
// tags past 128 heads (a head's index of two bytes).
func TestAddBareAsAdd(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 47))
	kinds := []*Kind{RepeatActionErrorStop, ClineFeedback, ClineStop, RepeatActionObservationStop}
	rulesOf := []*Rule{RepeatActionError, ClineRepeat, ClineRepeat, RepeatActionObservation}
	for round := range 20 {
		var plain, bare FiringList
		for range 3000 {
			k := rng.IntN(len(kinds))
			tag := rng.IntN(8)
			if round%2 == 1 {
				tag = rng.IntN(300)
			}
			turn := rng.IntN(1 << 12)
			switch rng.IntN(10) {
			case 0:
				turn = -1 - rng.IntN(1<<40)
			case 1:
				turn = 1<<32 - 2 + rng.IntN(4)
			case 2:
				turn = 1<<32 + rng.IntN(1<<40)
			}
			switch rng.IntN(10) {
			case 0:
				sig := fmt.Sprint("sig", rng.IntN(200)) // past 128 strings: an index of two bytes
				if rng.IntN(6) == 0 {
					sig = ""
				}
				plain.Add(&Firing{Turn: turn, Rule: SignatureRepeat, Kind: SignatureLoop, Signature: sig}, tag)
				bare.AddSignature(turn, SignatureRepeat, SignatureLoop, sig, tag)
				continue
			case 8, 9:
				causes := []string{"", "score_change", "objective_progress_reset", fmt.Sprint("cause", rng.IntN(200))}
				scores := []float64{0, math.Copysign(0, -1), 3, -2.5, math.NaN(), math.Inf(-1)}
				units := []string{"", "", UnitStep, UnitTurn}
				f := Firing{Turn: turn, Rule: ProgressVelocity, Kind: Reset, Cause: causes[rng.IntN(len(causes))],
					TurnsStuck: rng.IntN(300) - 10, Score: scores[rng.IntN(len(scores))], Unit: units[rng.IntN(len(units))]}
				if rng.IntN(4) == 0 {
					f.TurnsStuck = 0
				}
				if rng.IntN(8) == 0 {
					f.TurnsStuck = 1 << 40
				}
				g := f
				plain.Add(&f, tag)
				bare.AddCause(&g, tag)
				continue
			case 1, 2:
				sims := []float64{0, math.Copysign(0, -1), 0.5, 1, -2, math.NaN(), math.Inf(1)}
				sim, matched := sims[rng.IntN(len(sims))], rng.IntN(300)-10
				if rng.IntN(4) == 0 {
					matched = 0
				}
				if rng.IntN(8) == 0 {
					matched = -1 << 40
				}
				plain.Add(&Firing{Turn: turn, Rule: FuzzyRepeat, Kind: FuzzyLoop, Similarity: sim, MatchedStep: matched}, tag)
				bare.AddMatch(turn, FuzzyRepeat, FuzzyLoop, sim, matched, tag)
				continue
			}
			plain.Add(&Firing{Turn: turn, Rule: rulesOf[k], Kind: kinds[k]}, tag)
			bare.AddBare(turn, rulesOf[k], kinds[k], tag)
		}
		if plain.Len() != bare.Len() || len(plain.blocks) != len(bare.blocks) || !bytes.Equal(plain.cur, bare.cur) {
			t.Fatalf("round %d: %d firings, %d blocks; AddBare's %d, %d, or the last block differs", round, plain.Len(), len(plain.blocks), bare.Len(), len(bare.blocks))
		}
		for i := range plain.blocks {
			if !bytes.Equal(plain.blocks[i], bare.blocks[i]) {
				t.Fatalf("round %d: block %d differs", round, i)
			}
		}
	}
}

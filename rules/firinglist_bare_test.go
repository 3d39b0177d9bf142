package rules

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestAddBareAsAdd holds FiringList.AddBare to Add of the same firing:
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
			if rng.IntN(4) == 0 {
				f := Firing{Turn: turn, Rule: FuzzyRepeat, Kind: FuzzyLoop, Similarity: 0.5, MatchedStep: rng.IntN(500)}
				g := f
				plain.Add(&f, tag)
				bare.Add(&g, tag)
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

package detect

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestHistogramSetASCIIAsSetString holds setASCII, which counts an ASCII
// text without testing its bytes, to setString on the same text: the same
// counts and the same list of code points present, in the same order, over
// texts of few and of many code points, on both sides of
// setStringScanFrom (each side's loop and its last bytes), one histogram
// each reused (what a text left must not leak into the next, nor what a
// text with other code points left). checkHistogram then holds it, as
// setString, to counts by a map.
func TestHistogramSetASCIIAsSetString(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 3))
	text := func() string {
		b := make([]byte, rng.IntN(3*setStringScanFrom))
		kinds := 1 + rng.IntN(128) // distinct ASCII code points
		for i := range b {
			b[i] = byte(rng.IntN(kinds))
		}
		return string(b)
	}
	var h, ref, o histogram
	for it := range 5000 {
		if it%7 == 0 {
			// Counts left by other code points, as fuzzy_repeat's
			// reused entries may hold.
			h.setString("héllo wörld €\xff")
		}
		s := text()
		h.setASCII(s)
		ref.setString(s)
		if h.ascii != ref.ascii || !slices.Equal(h.present, ref.present) || len(h.other) != 0 {
			t.Fatalf("setASCII(%q): counts equal %v, present %v, want %v, other %v",
				s, h.ascii == ref.ascii, h.present, ref.present, h.other)
		}
		a, b := []rune(text()), []rune(text())
		checkHistogram(t, &h, &o, a, b, func(h *histogram, rs []rune) { h.setASCII(string(rs)) })
	}
}

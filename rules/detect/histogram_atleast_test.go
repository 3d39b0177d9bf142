package detect

import (
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// TestHistogramBoundAtLeast holds boundAtLeast, which sums all 128 ASCII
// counts by vector (asciiShared) and lists neither side, to bound: false
// exactly when bound is below the cutoff, bound itself otherwise, at
// cutoffs around it and at the ends, both ways, for listed and unlisted
// sides (setASCII) and sides with code points past ASCII (setString).
func TestHistogramBoundAtLeast(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 24))
	var h, o, hr, or histogram
	for it := range 4000 {
		a, b := asciiText(rng), asciiText(rng)
		if it%3 == 0 {
			b += "é€é"
		}
		if it%5 == 0 {
			a = "€" + a + "\xff"
		}
		set := func(h *histogram, s string) {
			if utf8.ValidString(s) && len(s) == utf8.RuneCountInString(s) && it%2 == 0 {
				h.setASCII(s)
			} else {
				h.setString(s)
			}
		}
		na, nb := utf8.RuneCountInString(a), utf8.RuneCountInString(b)
		set(&hr, a)
		set(&or, b)
		shared := hr.bound(&or)
		for _, cutoff := range []int{0, 1, shared - 2, shared - 1, shared, shared + 1, shared + 2, min(na, nb), max(na, nb)} {
			if cutoff < 0 {
				continue
			}
			for _, way := range []bool{false, true} {
				set(&h, a) // afresh, as bound lists an unlisted side
				set(&o, b)
				x, y := &h, &o
				if way {
					x, y = y, x
				}
				n, ok := x.boundAtLeast(y, cutoff)
				if ok != (shared >= cutoff) || ok && n != shared {
					t.Fatalf("boundAtLeast(%q, %q, cutoff %d, way %v) = %d %v, bound %d", a, b, cutoff, way, n, ok, shared)
				}
			}
		}
	}
}

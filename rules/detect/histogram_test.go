package detect

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestHistogramSetASCIIAsSetString holds setASCII, which counts an ASCII
// text without testing its bytes and leaves its list to bound, to
// setString on the same text: the same counts and, once listed, the same
// list of code points present (in code point order), over texts of few and
// of many code points, on both sides of setStringScanFrom (setString's
// two loops) and of each multiple of 8 (setASCII's words and last
// bytes), one histogram each reused (what a text left, listed or not,
// must not leak into the next, nor what a text with other code points
// left).
func TestHistogramSetASCIIAsSetString(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 3))
	var h, ref histogram
	for it := range 5000 {
		if it%7 == 0 {
			// Counts left by other code points, as fuzzy_repeat's
			// reused entries may hold.
			h.setString("héllo wörld €\xff")
		}
		s := asciiText(rng)
		h.setASCII(s)
		ref.setString(s)
		if h.ascii != ref.ascii || len(h.other) != 0 {
			t.Fatalf("setASCII(%q): counts equal %v, other %v", s, h.ascii == ref.ascii, h.other)
		}
		if !h.unlisted {
			t.Fatalf("setASCII(%q): listed", s)
		}
		h.listPresent() // in code point order, where a short text's setString lists by first occurrence
		if !slices.Equal(h.present, slices.Sorted(slices.Values(ref.present))) {
			t.Fatalf("setASCII(%q): present %v, want %v", s, h.present, ref.present)
		}
	}
}

// TestHistogramBoundUnlisted holds bound, which lists a side that
// setASCII left unlisted or reads the other side's list, to the sum of the
// smaller counts by maps, both ways, for pairs of short and long texts
// (listed and unlisted sides, both unlisted), setASCII and setString.
func TestHistogramBoundUnlisted(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 4))
	count := func(s string) map[rune]int {
		m := map[rune]int{}
		for _, r := range s {
			m[r]++
		}
		return m
	}
	var h, o histogram
	for it := range 5000 {
		a, b := asciiText(rng), asciiText(rng)
		if it%3 == 0 {
			b += "é€"
		}
		wa, wb, shared := count(a), count(b), 0
		for r, n := range wa {
			shared += min(n, wb[r])
		}
		set := func(h *histogram, s string) {
			if it%3 != 0 || s == a {
				h.setASCII(s)
			} else {
				h.setString(s)
			}
		}
		set(&h, a)
		set(&o, b)
		if it%2 == 0 {
			if g := h.bound(&o); g != shared {
				t.Fatalf("bound(%q, %q) = %d, want %d", a, b, g, shared)
			}
		}
		if g := o.bound(&h); g != shared {
			t.Fatalf("bound(%q, %q) = %d, want %d", b, a, g, shared)
		}
		if g := h.bound(&o); g != shared {
			t.Fatalf("bound(%q, %q) again = %d, want %d", a, b, g, shared)
		}
	}
}

// asciiText is an ASCII text of up to three times setStringScanFrom
// bytes over a random number of distinct code points.
func asciiText(rng *rand.Rand) string {
	b := make([]byte, rng.IntN(3*setStringScanFrom))
	kinds := 1 + rng.IntN(128)
	for i := range b {
		b[i] = byte(rng.IntN(kinds))
	}
	return string(b)
}

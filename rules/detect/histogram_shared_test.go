package detect

import (
	"math/rand/v2"
	"testing"
)

// TestASCIIShared holds asciiShared and each vector loop this CPU runs
// (asciiSharedFuncs) to asciiSharedGo, the plain sum of the smaller
// counts over the 128 ASCII code points: random counts, small and up to
// 2^24, zeros on either side, equal sides, and the 128 counts past ASCII
// (setASCII's bytes the caller rules out) set, which none may read.
func TestASCIIShared(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 8))
	funcs := append([]asciiSharedFunc{{"asciiShared", asciiShared}}, asciiSharedFuncs()...)
	var h, o [256]int32
	for it := range 20000 {
		limit := []int32{2, 10, 1000, 1 << 24}[it%4]
		for c := range h {
			h[c], o[c] = 0, 0
			if rng.IntN(3) > 0 {
				h[c] = rng.Int32N(limit)
			}
			if rng.IntN(3) > 0 {
				o[c] = rng.Int32N(limit)
			}
		}
		switch it % 7 {
		case 0:
			o = h
		case 1:
			clear(o[:])
		case 2:
			c := rng.IntN(128) // one code point apart
			h[c]++
		}
		want := asciiSharedGo(&h, &o)
		for _, f := range funcs {
			if got := f.f(&h, &o); got != want {
				t.Fatalf("it %d: %s = %d, want %d", it, f.name, got, want)
			}
			if got := f.f(&o, &h); got != want {
				t.Fatalf("it %d: %s swapped = %d, want %d", it, f.name, got, want)
			}
		}
	}
	// Every lane, alone: a lane's place in the vector must not matter.
	for c := range 128 {
		clear(h[:])
		clear(o[:])
		h[c], o[c] = 7, 5
		for _, f := range funcs {
			if got := f.f(&h, &o); got != 5 {
				t.Fatalf("%s with code point %d alone = %d, want 5", f.name, c, got)
			}
		}
	}
}

type asciiSharedFunc struct {
	name string
	f    func(h, o *[256]int32) int
}

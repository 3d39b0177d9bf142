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

// TestCountASCII holds countASCII and each assembly loop this CPU runs
// (countASCIIFuncs) to countASCIIGo: every length from 0 to 300 (each
// loop of sixteen, eight and one byte, and their ends), at every offset
// of 0-7 into the text, over a few and over all byte values (a byte past
// ASCII counted in the upper 128 as Go counts it), into counts left
// nonzero by a text before (the 128 ASCII cleared, the rest added to).
func TestCountASCII(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 9))
	funcs := append([]countASCIIFunc{{"countASCII", countASCII}}, countASCIIFuncs()...)
	buf := make([]byte, 320)
	var want, got, start [256]int32
	for n := 0; n <= 300; n++ {
		for off := range 8 {
			kinds := []int{2, 40, 128, 256}[(n+off)%4]
			for i := range buf {
				buf[i] = byte(rng.IntN(kinds))
			}
			s := string(buf[off : off+n])
			for c := range start {
				start[c] = rng.Int32N(1000)
			}
			want = start
			countASCIIGo(&want, s)
			for _, f := range funcs {
				got = start
				f.f(&got, s)
				if got != want {
					t.Fatalf("%s(%q): counts differ from countASCIIGo's", f.name, s)
				}
			}
		}
	}
}

type countASCIIFunc struct {
	name string
	f    func(a *[256]int32, s string)
}

// TestASCIIPresent holds asciiPresent (a vector loop on amd64) to
// asciiPresentGo and to the code points counted, plainly: random counts,
// none, all, one, and the 128 counts past ASCII set, which it may not
// read.
func TestASCIIPresent(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 9))
	var a [256]int32
	for it := range 5000 {
		var want [2]uint64
		for c := range a {
			a[c] = 0
			switch {
			case c >= 128:
				a[c] = rng.Int32N(3)
			case it%5 == 1:
			case it%5 == 2 || rng.IntN(2) == 0:
				a[c] = 1 + rng.Int32N([]int32{1, 100, 1 << 30}[it%3])
			}
			if c < 128 && a[c] != 0 {
				want[c/64] |= 1 << (c % 64)
			}
		}
		if it%5 == 3 {
			clear(a[:128])
			c := rng.IntN(128)
			a[c] = 1
			want = [2]uint64{}
			want[c/64] = 1 << (c % 64)
		}
		if got := asciiPresent(&a); got != want {
			t.Fatalf("it %d: asciiPresent = %x, want %x", it, got, want)
		}
		if got := asciiPresentGo(&a); got != want {
			t.Fatalf("it %d: asciiPresentGo = %x, want %x", it, got, want)
		}
	}
}

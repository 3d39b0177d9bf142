package detect

import (
	"math/rand/v2"
	"testing"
)

// commonAffixLoops is commonAffix a byte at a time, as lcsShared read
// the prefix and suffix before commonAffixBytes.
func commonAffixLoops(a, b []byte) (p, s int) {
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	a, b = a[p:], b[p:]
	for s < len(a) && s < len(b) && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	return p, s
}

// TestCommonAffixBytes holds commonAffixBytes to the byte loops: pairs
// that share a prefix and a suffix of 0 to 40 bytes around middles of 0
// to 20 (from a small alphabet, so that they often agree further, or
// one is all of the other), and the same pairs with one byte changed at
// every place.
func TestCommonAffixBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 17))
	gen := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = "ab\x00\xff"[r.IntN(4)]
		}
		return b
	}
	check := func(a, b []byte) {
		t.Helper()
		p, s := commonAffixBytes(a, b)
		wp, ws := commonAffixLoops(a, b)
		if p != wp || s != ws {
			t.Fatalf("commonAffixBytes(%q, %q) = %d, %d, want %d, %d", a, b, p, s, wp, ws)
		}
		if p, s := commonAffix(a, b); p != wp || s != ws {
			t.Fatalf("commonAffix(%q, %q) = %d, %d, want %d, %d", a, b, p, s, wp, ws)
		}
	}
	for range 20000 {
		pre, suf := gen(r.IntN(41)), gen(r.IntN(41))
		a := append(append(append([]byte{}, pre...), gen(r.IntN(21))...), suf...)
		b := append(append(append([]byte{}, pre...), gen(r.IntN(21))...), suf...)
		check(a, b)
		check(b, a)
		if len(a) > 0 {
			c := append([]byte{}, a...)
			c[r.IntN(len(c))] ^= 1
			check(a, c)
			check(c, a)
		}
		check(a, a)
		check(a, a[:len(a)/2])
		check(a[len(a)/2:], a)
	}
}

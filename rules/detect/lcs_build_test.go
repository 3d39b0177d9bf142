package detect

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBuildToAsPlain holds buildTo, whose loop over the ASCII code points
// that have their row leaves the others (new rows, the map) to a slower
// step, to the masks written plainly: the rows numbered by first
// occurrence and each position's bit in its row, for runes and bytes,
// built whole or in steps as bitLCS builds them (buildBytes for bytes,
// its first masks from rowBase).
func TestBuildToAsPlain(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	alphabets := [][]rune{[]rune("ab"), []rune("abcdefghijklmnopqrstuvwxyz .,\n\x00\x7f"), []rune("aé日\U0001F600 x"), []rune("\u0080\u00ff\U0010FFFF"), []rune("ab \u0080\u00ff\u00e9")}
	var mt lcsMatcher
	for it := range 2000 {
		alpha := alphabets[it%len(alphabets)]
		a := randomRunes(r, alpha, r.IntN([]int{10, 70, 300, 1000}[r.IntN(4)]))
		words := (len(a) + 63) / 64
		// The plain masks.
		order := []rune{}
		masks := map[rune][]uint64{}
		for i, c := range a {
			m, ok := masks[c]
			if !ok {
				m = make([]uint64, words)
				masks[c] = m
				order = append(order, c)
			}
			m[i/64] |= 1 << (i % 64)
		}
		check := func(how string) {
			t.Helper()
			if mt.rows != len(order) || mt.built != len(a) {
				t.Fatalf("case %d (%s): %d rows, %d built; want %d, %d", it, how, mt.rows, mt.built, len(order), len(a))
			}
			for k, c := range order {
				if got := mt.row(c); got != k {
					t.Fatalf("case %d (%s): row(%q) = %d, want %d", it, how, c, got, k)
				}
				if got := mt.peq[k*words : (k+1)*words]; !slices.Equal(got, masks[c]) {
					t.Fatalf("case %d (%s): masks of %q = %x, want %x", it, how, c, got, masks[c])
				}
			}
		}
		steps := func(build func(to int)) {
			for to := 0; to < len(a); {
				to = min(len(a), to+1+r.IntN(130))
				build(to)
			}
		}
		mt.build(a, words)
		check("runes, whole")
		mt.startBuild(words)
		steps(func(to int) { mt.buildTo(a, to) })
		check("runes, in steps")
		// Bytes over 0x7f (code points to U+00FF) have their rows in the
		// map, as the runes do; buildBytes stops at each.
		if slices.ContainsFunc(a, func(c rune) bool { return c >= 256 }) {
			continue
		}
		bs := make([]byte, len(a))
		for i, c := range a {
			bs[i] = byte(c)
		}
		mt.startBuild(words)
		buildTo(&mt, bs, len(bs))
		check("bytes, whole")
		mt.startBuild(words)
		steps(func(to int) { buildTo(&mt, bs, to) })
		check("bytes, in steps")
	}
}

// TestBandShrinkCountAsIdx holds bandShrink.count, which reads an ASCII
// code point's index from a table, to idx a code point at a time: the
// same counts for texts of ASCII, of code points past it and mixed, with
// code points of the pattern's rows and others.
func TestBandShrinkCountAsIdx(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 43))
	alphabets := [][]rune{[]rune("abc \n"), []rune("aé日\U0001F600 x\x00\x7f"), []rune("\u0080\u00ff\U0010FFFF")}
	var mt lcsMatcher
	for it := range 500 {
		a := randomRunes(r, alphabets[it%3], 1+r.IntN(300))
		b := randomRunes(r, alphabets[(it/3)%3], 1+r.IntN(300))
		mt.build(a, (len(a)+63)/64)
		s := &bandShrink{mt: &mt, other: mt.rows}
		for _, text := range [][]rune{a, b} {
			got, want := make([]int32, mt.rows+1), make([]int32, mt.rows+1)
			s.count(got, text)
			for _, c := range text {
				want[s.idx(c)]++
			}
			if !slices.Equal(got, want) {
				t.Fatalf("case %d: count(%q) = %v, want %v", it, string(text), got, want)
			}
		}
	}
}

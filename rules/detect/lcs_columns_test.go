package detect

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestColumnsBytesAsLcsColumn holds columns over bytes, whose bands of two
// words and more go through columnsBytes (its loop over the columns, and
// bands of two to twelve words held in registers), to the plain update, one
// lcsColumn a column: the same band words after the same columns, from
// random bit vectors, for bands of every width at every offset, with
// bytes that are not ASCII (the return to columns) in some texts and
// patterns; and the same columns as code points.
func TestColumnsBytesAsLcsColumn(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	var mt lcsMatcher
	for it := range 4000 {
		top := 128
		if it%5 == 0 {
			top = 256 // bytes that are not ASCII
		}
		kinds := 1 + r.IntN(40)
		sym := func() byte {
			c := byte(r.IntN(kinds))
			if top == 256 && r.IntN(8) == 0 {
				c = byte(128 + r.IntN(128))
			}
			return c
		}
		a := make([]byte, 1+r.IntN(1100)) // to 18 words: past columnsBytes12
		for i := range a {
			a[i] = sym()
		}
		bs := make([]byte, r.IntN(200))
		for i := range bs {
			bs[i] = sym()
		}
		words := (len(a) + 63) / 64
		mt.startBuild(words)
		buildTo(&mt, a, len(a))
		// Every band width from one word to 14 (columnsBytes2 to 12,
		// and the loop of columnsBytes each side of them) in turn.
		width := min(words, 1+it%14)
		first := r.IntN(words - width + 1)
		last := first + width
		v := make([]uint64, words)
		for i := range v {
			v[i] = r.Uint64()
		}
		want, vr := slices.Clone(v), slices.Clone(v)
		for _, c := range bs {
			if k := mt.row(rune(c)); k >= 0 {
				lcsColumn(want[first:last], mt.peq[k*words+first:k*words+last])
			}
		}
		columns(&mt, v, first, last, bs, nil)
		if !slices.Equal(v, want) {
			t.Fatalf("case %d: %d words, band [%d, %d), %d columns: %x, want %x", it, words, first, last, len(bs), v, want)
		}
		// The same columns as code points (columnsRunesAsmN on amd64).
		rs := make([]rune, len(bs))
		for i, c := range bs {
			rs[i] = rune(c)
		}
		columns(&mt, vr, first, last, rs, nil)
		if !slices.Equal(vr, want) {
			t.Fatalf("case %d: %d words, band [%d, %d), %d code points: %x, want %x", it, words, first, last, len(bs), vr, want)
		}
	}
}

// TestBitLCSBytesAsPlain is TestBitLCSRunsAsPlain over the bytes of ASCII
// texts (lcsBytes's), whose columns go through columnsBytes: the same
// result and bit vector as the plain loop over their code points.
func TestBitLCSBytesAsPlain(t *testing.T) {
	r := rand.New(rand.NewPCG(53, 54))
	alphabets := [][]rune{[]rune("ab"), []rune("abcdefghijklmnopqrstuvwxyz .,\n")}
	var mt, ref lcsMatcher
	for it := range 1500 {
		alpha := alphabets[it%len(alphabets)]
		a, b := lcsTestPair(r, alpha, it)
		if b == nil {
			continue
		}
		want := naiveLCS(a, b)
		ab, bb := []byte(string(a)), []byte(string(b))
		for _, c := range []int{0, want - 1, want, want + 1, want + r.IntN(40) - 20, (9*(len(a)+len(b)) + 19) / 20} {
			c = min(max(c, 0), len(a))
			got, ok := bitLCS(&mt, ab, bb, c)
			wantN, wantOK := ref.bitLCSPlain(a, b, c)
			if got != wantN || ok != wantOK || !slices.Equal(mt.v[:mt.words], ref.v[:ref.words]) {
				t.Fatalf("case %d (%d+%d bytes), cutoff %d: bitLCS = %d, %v; plain %d, %v (LCS %d), vectors equal: %v",
					it, len(a), len(b), c, got, ok, wantN, wantOK, want, slices.Equal(mt.v[:mt.words], ref.v[:ref.words]))
			}
		}
	}
}

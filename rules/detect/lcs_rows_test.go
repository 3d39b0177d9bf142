package detect

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// presentOf is the set of the ASCII code points of s, plainly.
func presentOf(s []byte) [2]uint64 {
	var p [2]uint64
	for _, c := range s {
		p[c>>6] |= 1 << (c & 63)
	}
	return p
}

// countsOf is a histogram's ASCII counts with the code points of set,
// one each (lcsBytesRows reads their signs alone).
func countsOf(set [2]uint64) *[256]int32 {
	var c [256]int32
	for x := range 128 {
		c[x] = int32(set[x>>6] >> (x & 63) & 1)
	}
	return &c
}

// TestLCSBytesRows holds the rows made at once (givenRows, lcsBytesRows)
// to the masks built as the pattern's bytes are met: bitLCS with the rows
// given the same LCS and the same bit vector as the plain loop, and
// lcsBytesRows the same as lcsBytes, for pairs near and far, at cutoffs
// around the LCS, with the texts' own code points, with more (code
// points neither text has: rows no byte sets) and with fewer of the
// pattern's (rows made as met), patterns short and long (rows made at
// once from givenRowsFrom words, else as met: buildBytesMet). One
// matcher runs all, LCSs over code points between (lcsShared), so that
// an entry of the rows' tables left set (startBuild clears only those
// set) shows.
func TestLCSBytesRows(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	alphabets := [][]rune{[]rune("ab"), []rune("abcdefghijklmnopqrstuvwxyz .,\n"), []rune("abc\x00\x7f{}~?@AZ_`"), []rune("xyz")}
	var mt, ref lcsMatcher
	for it := range 1500 {
		alpha := alphabets[it%len(alphabets)]
		a, b := lcsTestPair(r, alpha, it)
		if b == nil {
			continue
		}
		if it%8 == 3 {
			b = randomRunes(r, alphabets[(it/8)%len(alphabets)], len(b)) // other code points
		}
		if it%5 == 2 {
			// The masks of another alphabet over code points.
			x, y := lcsTestPair(r, []rune("ABCDEFGH{}\x01 é日"), it)
			if y != nil {
				n, ok := mt.lcsShared(x, y, len(x)/2, -1)
				if wantN, wantOK := ref.lcsShared(x, y, len(x)/2, -1); n != wantN || ok != wantOK {
					t.Fatalf("case %d: lcsShared over code points = %d, %v; want %d, %v", it, n, ok, wantN, wantOK)
				}
			}
		}
		ab, bb := []byte(string(a)), []byte(string(b))
		pa, pb := presentOf(ab), presentOf(bb)
		switch it % 4 {
		case 1, 3:
			pa[0], pa[1] = pa[0]|r.Uint64(), pa[1]|r.Uint64()
			pb[0], pb[1] = pb[0]|r.Uint64(), pb[1]|r.Uint64()
		case 2:
			// Fewer of a's: code points b lacks, whose rows no column
			// of b reads (a text's set must hold those the pattern
			// shares with it; either text may be the pattern).
			lose := [2]uint64{r.Uint64(), r.Uint64()}
			pa[0], pa[1] = pa[0]&^(lose[0]&^pb[0]), pa[1]&^(lose[1]&^pb[1])
		}
		want := naiveLCS(a, b)
		for _, c := range []int{0, want - 1, want, want + 1, want + r.IntN(40) - 20, (9*(len(a)+len(b)) + 19) / 20} {
			c = min(max(c, 0), len(a))
			mt.given, mt.pa, mt.pb = true, pa, pb
			got, ok := bitLCS(&mt, ab, bb, c)
			mt.given = false
			wantN, wantOK := ref.bitLCSPlain(a, b, c)
			if got != wantN || ok != wantOK || !slices.Equal(mt.v[:mt.words], ref.v[:ref.words]) {
				t.Fatalf("case %d (%d+%d bytes), cutoff %d: bitLCS with rows given = %d, %v; plain %d, %v (LCS %d), vectors equal: %v",
					it, len(a), len(b), c, got, ok, wantN, wantOK, want, slices.Equal(mt.v[:mt.words], ref.v[:ref.words]))
			}
			// Both orders: lcsBytesRows swaps the sets with the texts.
			for _, x := range [][2][]byte{{ab, bb}, {bb, ab}} {
				px, py := pa, pb
				if &x[0][0] == &bb[0] {
					px, py = pb, pa
				}
				mt.pa, mt.pb = [2]uint64{^uint64(0), ^uint64(0)}, [2]uint64{} // not these: the counts
				gotN, gotOK := mt.lcsBytesRows(string(x[0]), string(x[1]), c, -1, countsOf(px), countsOf(py))
				plainN, plainOK := ref.lcsBytes(string(x[0]), string(x[1]), c, -1)
				if gotN != plainN || gotOK != plainOK {
					t.Fatalf("case %d, cutoff %d: lcsBytesRows = %d, %v; lcsBytes %d, %v", it, c, gotN, gotOK, plainN, plainOK)
				}
			}
		}
	}
}

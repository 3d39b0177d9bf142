package detect

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// asciiCounts is a histogram's ASCII counts of rs, as fuzzy_repeat's
// first test counts an ASCII output (setASCII).
func asciiCounts(rs []rune) *[256]int32 {
	var h histogram
	h.setASCII(string(rs))
	return &h.ascii
}

// TestBandShrinkCountGiven holds countGiven (a bandShrink's counts read
// from the whole texts' histograms, less their common prefix and suffix)
// to count over the middles, for texts of few code points and many, the
// pattern's rows made over its middle as bitLCS makes them (code points
// of the other text and of the affixes without a row count at s.other),
// prefixes and suffixes empty and not.
func TestBandShrinkCountGiven(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 72))
	alphabets := [][]rune{[]rune("ab"), []rune("abcdefghij \n"), []rune("xyz{}\":,\x00\x7f")}
	var mt lcsMatcher
	for it := range 400 {
		alpha := alphabets[it%len(alphabets)]
		pre := randomRunes(r, []rune("PQ \n"), []int{0, 1, r.IntN(40)}[it%3])
		suf := randomRunes(r, []rune("STa"), []int{0, 2, r.IntN(40)}[(it/3)%3])
		ma := randomRunes(r, alpha, 1+r.IntN(300))
		mb := mutate(r, ma, append(slices.Clone(alpha), 'Z'), r.IntN(len(ma)/3+1))
		if len(mb) == 0 {
			continue
		}
		a := slices.Concat(pre, ma, suf)
		b := slices.Concat(pre, mb, suf)
		mt.build(ma, (len(ma)+63)/64)
		s := &bandShrink{mt: &mt, other: mt.rows}
		k := mt.rows + 1
		gotLo, gotCb := make([]int32, k), make([]int32, k)
		s.lo, s.cb = gotLo, gotCb
		// Either text is whole: the prefix and suffix are both's.
		whole := [][]rune{a, b}[it%2]
		s.countGiven(asciiCounts(a), asciiCounts(b), whole, len(pre), len(suf))
		wantLo, wantCb := make([]int32, k), make([]int32, k)
		s.count(wantLo, ma)
		s.count(wantCb, mb)
		if !slices.Equal(gotLo, wantLo) || !slices.Equal(gotCb, wantCb) {
			t.Fatalf("case %d: countGiven = %v, %v; count = %v, %v", it, gotLo, gotCb, wantLo, wantCb)
		}
	}
}

// TestLCSRunesCounted holds lcsRunesCounted (lcsShared with the texts'
// counts given, read by a bandShrink) to the naive table, with the band
// narrowed from 64 code points so that its counts are read, texts sharing
// a prefix and suffix, the shorter either one, at cutoffs around the
// LCS; lcsShared over the same matcher between, so that counts left given
// show.
func TestLCSRunesCounted(t *testing.T) {
	r := rand.New(rand.NewPCG(73, 74))
	alpha := []rune("abcdefghijklmnopqrstuvwxyz .,\n")
	var mt lcsMatcher
	defer func(old int) { shrinkFrom = old }(shrinkFrom)
	shrinkFrom = 64
	for it := range 60 {
		pre := randomRunes(r, alpha, r.IntN(30))
		suf := randomRunes(r, alpha, r.IntN(30))
		ma := randomRunes(r, alpha, 100+r.IntN(900))
		mb := mutate(r, ma, alpha, r.IntN(len(ma)/4+1))
		if it%3 == 0 {
			mb = randomRunes(r, alpha, len(ma)+r.IntN(100)-50)
		}
		a, b := slices.Concat(pre, ma, suf), slices.Concat(pre, mb, suf)
		if it%2 == 1 {
			a, b = b, a
		}
		want := naiveLCS(a, b)
		total := len(a) + len(b)
		for _, c := range []int{want - 1, want, want + 1, (9*total + 19) / 20} {
			var h histogram
			h.setASCII(string(a))
			var hb histogram
			hb.setASCII(string(b))
			shared := h.bound(&hb)
			got, ok := mt.lcsRunesCounted(a, b, c, shared, &h.ascii, &hb.ascii)
			if (want >= c) != ok || (ok && got != want) {
				t.Fatalf("case %d (%d+%d runes), cutoff %d: %d, %v; want LCS %d", it, len(a), len(b), c, got, ok, want)
			}
			if got2, ok2 := mt.lcsShared(b, a, c, shared); ok2 != ok || ok && got2 != got {
				t.Fatalf("case %d, cutoff %d: lcsShared after it %d, %v; want %d, %v", it, c, got2, ok2, got, ok)
			}
		}
	}
}

// TestRowsCounted holds the rows made from the pattern's counts
// (rowsCounted, the masks then built as the band reaches them) to the
// masks built whole as the code points are met (build): after both,
// each code point of the middle has a row with the same words, each code
// point of the whole text alone an empty row, and no row is made twice;
// one matcher runs both, so that rows left from the last pair show.
func TestRowsCounted(t *testing.T) {
	r := rand.New(rand.NewPCG(75, 76))
	alphabets := [][]rune{[]rune("ab"), []rune("abcdefghij \n"), []rune("xyz{}\":,\x00\x7f")}
	var got, want lcsMatcher
	for it := range 300 {
		alpha := alphabets[it%len(alphabets)]
		pre := randomRunes(r, []rune("PQa"), r.IntN(20))
		suf := randomRunes(r, []rune("ST \n"), r.IntN(20))
		mid := randomRunes(r, alpha, 1+r.IntN(400))
		whole := slices.Concat(pre, mid, suf)
		words := (len(mid) + 63) / 64
		got.ca = asciiCounts(whole)
		got.startBuild(words)
		got.rowsCounted()
		got.buildTo(mid, len(mid))
		want.build(mid, words)
		seen := map[int]bool{}
		for c := range rune(128) {
			k := got.row(c)
			inWhole, inMid := slices.Contains(whole, c), slices.Contains(mid, c)
			if (k >= 0) != inWhole || k >= got.rows || seen[k] && k >= 0 {
				t.Fatalf("case %d: code point %q has row %d of %d (in the text: %v)", it, c, k, got.rows, inWhole)
			}
			seen[k] = true
			if k < 0 {
				continue
			}
			g := got.peq[k*words : (k+1)*words]
			w := make([]uint64, words)
			if inMid {
				kw := want.row(c)
				w = want.peq[kw*words : (kw+1)*words]
			}
			if !slices.Equal(g, w) {
				t.Fatalf("case %d: code point %q: masks %x, want %x", it, c, g, w)
			}
		}
	}
}

// TestColumnsShrinkCounts holds columns with a bandShrink that keeps
// counts (its counts taken for the whole run first, the band's words then
// updated by the loops that hold them in registers) to the plain loop, a
// column's counts then its words through lcsColumn: the same band words
// and the same counts and distances after the same columns, for bands of
// every width to 14 words, code points past ASCII among the columns.
func TestColumnsShrinkCounts(t *testing.T) {
	r := rand.New(rand.NewPCG(77, 78))
	alphabets := [][]rune{[]rune("abcdefghij \n"), []rune("ab\x00é日\U0001F600 x")}
	var mt lcsMatcher
	for it := range 2000 {
		alpha := alphabets[it%len(alphabets)]
		a := randomRunes(r, alpha, 1+r.IntN(1000))
		bs := randomRunes(r, append(slices.Clone(alpha), 'Z', 'é'), r.IntN(200))
		words := (len(a) + 63) / 64
		mt.build(a, words)
		// The pattern's suffix of the band's top from a random row, as
		// newShrink and topCap leave it.
		pHi := r.IntN(len(a) + 1)
		shrink := func() *bandShrink {
			s := countedShrink(&mt, a, bs)
			s.advance(s.hi, &s.hHi, &s.pHi, pHi)
			return s
		}
		got, want := shrink(), shrink()
		width := min(words, 1+it%14)
		first := r.IntN(words - width + 1)
		last := first + width
		v := make([]uint64, words)
		for i := range v {
			v[i] = r.Uint64()
		}
		wantV := slices.Clone(v)
		for _, c := range bs {
			k := mt.row(c)
			want.column(k)
			if k >= 0 {
				lcsColumn(wantV[first:last], mt.peq[k*words+first:k*words+last])
			}
		}
		columns(&mt, v, first, last, bs, got)
		if !slices.Equal(v, wantV) || !slices.Equal(got.cb, want.cb) || got.hLo != want.hLo || got.hHi != want.hHi {
			t.Fatalf("case %d: %d words, band [%d, %d), %d columns: %x, counts %v, %d, %d; want %x, %v, %d, %d",
				it, words, first, last, len(bs), v, got.cb, got.hLo, got.hHi, wantV, want.cb, want.hLo, want.hHi)
		}
	}
}

// countedShrink is a bandShrink keeping the counts of pattern a and
// text b, as newShrink makes one with no seeds, on counts made by count.
func countedShrink(mt *lcsMatcher, a, b []rune) *bandShrink {
	k := mt.rows + 1
	s := &bandShrink{mt: mt, a: a, other: mt.rows, hist: true,
		cb: make([]int32, k), lo: make([]int32, k), hi: make([]int32, k)}
	s.count(s.cb, b)
	s.count(s.lo, a)
	s.startDistances()
	return s
}

// advanceRef is advance as it was: through its pointers, by absolute
// values.
func (s *bandShrink) advanceRef(ca []int32, h, p *int, to int) {
	for ; *p < to && *p < len(s.a); *p++ {
		c := s.idx(s.a[*p])
		*h += abs32(ca[c]-1-s.cb[c]) - abs32(ca[c]-s.cb[c])
		ca[c]--
	}
}

// TestBandShrinkAdvance holds advance to advanceRef: the same counts,
// distance and position after steps to random rows, backwards (no move),
// to the pattern's end and past it, code points past ASCII and of the
// other text alone among them.
func TestBandShrinkAdvance(t *testing.T) {
	r := rand.New(rand.NewPCG(79, 80))
	alphabets := [][]rune{[]rune("abcdefghij \n"), []rune("ab\x00é日\U0001F600 x")}
	var mt lcsMatcher
	for it := range 1000 {
		alpha := alphabets[it%len(alphabets)]
		a := randomRunes(r, alpha, 1+r.IntN(600))
		b := randomRunes(r, append(slices.Clone(alpha), 'Z', 'é'), 1+r.IntN(600))
		mt.build(a, (len(a)+63)/64)
		got, want := countedShrink(&mt, a, b), countedShrink(&mt, a, b)
		for range 6 {
			to := r.IntN(len(a) + 100)
			got.advance(got.lo, &got.hLo, &got.pLo, to)
			want.advanceRef(want.lo, &want.hLo, &want.pLo, to)
			if got.pLo != want.pLo || got.hLo != want.hLo || !slices.Equal(got.lo, want.lo) {
				t.Fatalf("case %d: advance to %d: at %d, distance %d, counts %v; want %d, %d, %v",
					it, to, got.pLo, got.hLo, got.lo, want.pLo, want.hLo, want.lo)
			}
		}
	}
}

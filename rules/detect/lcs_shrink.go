package detect

// bitLCS's band narrowing for long patterns (bandShrink): the rows an
// alignment within the budget can still use, by code point counts or by
// seeds; and its counts read from the two texts' histograms where
// fuzzy_repeat has counted them (lcsRunesCounted).

// shrinkFrom is the pattern length from which bitLCS narrows its band with
// a bandShrink (below it the bookkeeping costs more than it saves).
var shrinkFrom = 4096

// bandShrink narrows bitLCS's band to the rows an alignment within the
// Indel budget (len(a)+len(b)-2·cutoff) can still use. An alignment at
// row i after j columns has spent at least i+j-2·D[i] (D from the band:
// the alignment is in it) and will spend at least the code point
// histogram distance of what is left, Σ|count in a[i:] − count in b[j:]|.
// Rows where the two exceed the budget are left out: at the bottom for
// good (an alignment there later would have passed through them), at the
// top until the next check, with the slack the bounds can lose meanwhile.
// Both bounds are taken for a whole word of 64 rows, loosened by 64.
type bandShrink struct {
	mt       *lcsMatcher
	a        []rune
	budget   int
	cb       []int32 // counts in b[j:]
	lo, hi   []int32 // counts in a[pLo:], a[pHi:]
	pLo, pHi int
	hLo, hHi int  // the histogram distances of the two suffixes of a with b[j:]
	other    int  // index of the code points of b not in a
	hist     bool // the counts are kept
	sb       *seedBound
	topSlack int // what sb's bound can lose over 64 columns
}

func (mt *lcsMatcher) newShrink(a, b []rune, budget, dlo, dhi int) *bandShrink {
	k := mt.rows + 1
	s := &mt.shrink
	grow := func(x []int32) []int32 {
		if cap(x) < k {
			return make([]int32, k)
		}
		x = x[:k]
		clear(x)
		return x
	}
	*s = bandShrink{mt: mt, a: a, budget: budget, other: mt.rows,
		cb: s.cb, lo: s.lo, hi: s.hi}
	if n := seedLen(budget, len(a)+len(b)); n > 0 {
		s.sb = &mt.seeds
		s.sb.build(a, b, n, dlo, dhi)
		s.topSlack = 2 * (64/n + 2)
	}
	// Where seeds pay (few edits), they bound far better than code point
	// counts: counting those too would only cost time.
	s.hist = s.sb == nil
	if !s.hist {
		return s
	}
	s.cb, s.lo, s.hi = grow(s.cb), grow(s.lo), grow(s.hi)
	if mt.whole != nil {
		s.countGiven(mt.ca, mt.cb, mt.whole, mt.pre, mt.suf)
	} else {
		s.count(s.cb, b)
		s.count(s.lo, a)
	}
	s.startDistances()
	return s
}

// startDistances starts the band's top where its bottom is (hi the counts
// lo holds) and both distances at the one between lo's counts and cb's.
func (s *bandShrink) startDistances() {
	copy(s.hi, s.lo)
	s.hLo = 0
	for c := range s.cb {
		s.hLo += abs32(s.lo[c] - s.cb[c])
	}
	s.hHi = s.hLo
}

// count adds one to counts at the index of each code point of rs: an
// ASCII code point's index is read from a table of the 128, made once,
// where idx tested the code point, then its row, for each (newShrink
// counts two texts of 4096 code points or more).
func (s *bandShrink) count(counts []int32, rs []rune) {
	var index [128]int32
	for c := range index {
		index[c] = int32(s.idx(rune(c)))
	}
	for _, r := range rs {
		if uint32(r) < 128 {
			counts[index[r]]++
			continue
		}
		counts[s.idx(r)]++
	}
}

func (s *bandShrink) idx(r rune) int {
	if k := s.mt.row(r); k >= 0 {
		return k
	}
	return s.other
}

func abs32(x int32) int {
	if x < 0 {
		return int(-x)
	}
	return int(x)
}

// column takes the column's code point (its row k, -1 when not in a) out
// of b's suffix: shrinkColumns' reference, a column at a time.
func (s *bandShrink) column(k int) {
	c := k
	if c < 0 {
		c = s.other
	}
	s.hLo += abs32(s.lo[c]-s.cb[c]+1) - abs32(s.lo[c]-s.cb[c])
	s.hHi += abs32(s.hi[c]-s.cb[c]+1) - abs32(s.hi[c]-s.cb[c])
	s.cb[c]--
}

// shrinkColumns is column for each code point of bs, in one loop whose
// counts and distances stay in registers (column's call a code point
// loaded them all again: some 60 instructions a column). A code point
// taken out of b's suffix moves each distance by one: up where the
// pattern's suffix has as many of it or more, else down.
func shrinkColumns[T symbol](s *bandShrink, bs []T) {
	lo, hi, cb := s.lo, s.hi, s.cb
	ascii := &s.mt.ascii
	hLo, hHi := s.hLo, s.hHi
	for _, r := range bs {
		var k int
		if uint32(r) < 128 {
			k = int(ascii[r]) - 1
		} else {
			k = s.mt.row(rune(r))
		}
		if k < 0 {
			k = s.other
		}
		n := cb[k]
		if lo[k] >= n {
			hLo++
		} else {
			hLo--
		}
		if hi[k] >= n {
			hHi++
		} else {
			hHi--
		}
		cb[k] = n - 1
	}
	s.hLo, s.hHi = hLo, hHi
}

// advance takes a[*p:to] out of the suffix counted in ca.
// Its count and distance are held in locals, each code point's moving
// the distance by one, down where the pattern's suffix has more of it
// than b's, else up, where the loop stored both through their pointers
// and took four absolute values a code point (advanceRef, its test's).
func (s *bandShrink) advance(ca []int32, h, p *int, to int) {
	i, hd := *p, *h
	if to > len(s.a) {
		to = len(s.a)
	}
	cb, ascii := s.cb, &s.mt.ascii
	for ; i < to; i++ {
		r := s.a[i]
		var c int
		if uint32(r) < 128 {
			c = int(ascii[r]) - 1
		} else {
			c = s.mt.row(r)
		}
		if c < 0 {
			c = s.other
		}
		n := ca[c]
		if n > cb[c] {
			hd--
		} else {
			hd++
		}
		ca[c] = n - 1
	}
	*p, *h = i, hd
}

// belowOut says no alignment within the budget can use word w (rows
// [64w, 64w+64)) after jc columns, where zBelow zero bits lie under it
// and zw in it; w is the band's lowest word.
func (s *bandShrink) belowOut(w, jc, zw, zBelow int) bool {
	spent := 64*w + jc - 2*(zBelow+zw)
	h := 0
	if s.hist {
		s.advance(s.lo, &s.hLo, &s.pLo, 64*w)
		h = s.hLo
	}
	if s.sb != nil {
		h = max(h, s.sb.at(64*w, jc)-1)
	}
	return spent+h-64 > s.budget
}

// topCap returns the first word from `from` on (below `to`) that no
// alignment within the budget can reach in the next 64 columns, where
// dTop is D at the band's top (jc columns done); `to` if there is none.
func (s *bandShrink) topCap(from, to, jc, dTop int) int {
	for w := from; w < to; w++ {
		// An alignment entering row 64w or above in a later column has at
		// most one more match there; over 64 columns the two bounds can
		// each fall by 64.
		spent := 64*w + jc - 2*(dTop+1)
		h := 0
		if s.hist {
			s.advance(s.hi, &s.hHi, &s.pHi, 64*w)
			h = s.hHi
		}
		if s.sb != nil {
			h = max(h, s.sb.at(64*w, jc)-s.topSlack)
		}
		if spent+h-64-128 > s.budget {
			return w
		}
	}
	return to
}

// lcsRunesCounted is lcsShared for a caller that has counted the code
// points of a and of b, both ASCII (ca and cb, a histogram's; fuzzy_repeat's
// first test counts them): a bandShrink that keeps code point counts
// (a long pair, few seeds) reads them from ca and cb less the common
// prefix and suffix lcsShared cut (countGiven), where it counted both
// texts' middles a code point at a time (some 13 instructions each: the
// steps log's LCSs from shrinkFrom code points are some 5,500 long, and
// their counts were a fifth of their cost).
func (mt *lcsMatcher) lcsRunesCounted(a, b []rune, cutoff, shared int, ca, cb *[256]int32) (int, bool) {
	mt.whole, mt.ca, mt.cb = a, ca, cb
	n, ok := mt.lcsShared(a, b, cutoff, shared)
	mt.whole, mt.ca, mt.cb = nil, nil, nil
	return n, ok
}

// countGiven sets s.lo and s.cb, cleared, to the counts of the pattern's
// and the other text's middles: ca and cb, the pattern's and the other's
// whole counts, less the code points of whole[:pre] and of whole's last
// suf (the prefix and suffix the two texts share), at their indexes
// (idx). Its result is count's on the middles (TestBandShrinkCountGiven).
func (s *bandShrink) countGiven(ca, cb *[256]int32, whole []rune, pre, suf int) {
	var index [128]int32
	for c := range index {
		k := int32(s.idx(rune(c)))
		index[c] = k
		s.lo[k] += ca[c]
		s.cb[k] += cb[c]
	}
	for _, affix := range [2][]rune{whole[:pre], whole[len(whole)-suf:]} {
		for _, r := range affix {
			var k int32
			if uint32(r) < 128 {
				k = index[r]
			} else {
				k = int32(s.idx(r)) // not for an ASCII text: never met
			}
			s.lo[k]--
			s.cb[k]--
		}
	}
}

// rowsCounted makes, after startRows, a row for each code point the
// pattern's counts (ca, lcsRunesCounted's) have, its words cleared
// (givenRows, every one of them the other's too), so that a bandShrink
// numbers the pattern's code points without its masks built whole:
// bitLCS built all of a long pattern's masks before its first column
// (~24 instructions a code point) where the steps log's long pairs stop
// after a third of them. A code point of the prefix or suffix alone has
// a row too, which no byte of the middles sets: the bandShrink counts it
// apart, where it counted it with the other text's code points missing
// from the pattern, a bound as admissible and no looser.
func (mt *lcsMatcher) rowsCounted() {
	mt.pa = asciiPresent(mt.ca)
	mt.pb = mt.pa
	mt.givenRows()
}

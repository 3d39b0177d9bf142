package detect

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"unsafe"
)

// lcsMatcher computes LCS lengths over code points with the bit-parallel
// algorithm of Allison-Dix / Hyyrö ("Bit-parallel LCS-length computation
// revisited", 2004): the shorter string's positions are bits of a
// multi-word vector V, each code point of the longer string updates V in
// O(words) with
//
//	u = V & M[c];  V = (V + u) | (V - u)
//
// and the LCS is the number of zero bits at the end. Its buffers are reused
// from pair to pair; a matcher is not safe for concurrent use.
type lcsMatcher struct {
	// ascii maps an ASCII code point to its row+1 in peq, 0 when absent;
	// the 128 past them stay 0, so that a byte indexes it as it is
	// (buildBytes: one test for a byte that is not ASCII and a code point
	// without its row yet).
	ascii [256]int32
	// rowBase is an ASCII code point's row times words, plus one: the
	// first of its masks in peq, 0 when it has no row (256 long, as
	// ascii, the 128 past ASCII 0). buildBytes and columnsBytesN read it
	// alone: a column's row is found with no multiplication by words,
	// and a register less is live across the columns. A code point the
	// pattern has and the other text lacks has a row here, which no
	// column reads (givenRows' lone row), and 0 in ascii.
	rowBase [256]int
	other   map[rune]int32 // the same for the rest
	peq     []uint64       // pattern masks, one row of words per code point
	rows    int
	words   int // words a row
	built   int // the pattern's code points in the masks (a prefix)
	v       []uint64

	// given says pa and pb are the ASCII code points of the pattern's
	// text and of the other's, as bit sets (lcsBytesRows): bitLCS then
	// makes the pattern's rows at once (givenRows) when the pattern is
	// long (givenRowsFrom), and rowsGiven says it did (buildTo).
	// ca and cb, when not nil, count them (lcsBytesRows): pa and pb are
	// read from them when the rows are made.
	given, rowsGiven bool
	pa, pb           [2]uint64
	ca, cb           *[256]int32
	// set holds the ASCII code points whose ascii and rowBase entries may
	// not be 0 (bit c for code point c): startBuild clears those alone.
	set [2]uint64
	// whole, when not nil, is one of two ASCII texts of code points whose
	// counts are ca and cb (lcsRunesCounted), and pre and suf the lengths
	// of the common prefix and suffix lcsShared cut from them: newShrink
	// reads its counts from those (countGiven).
	whole    []rune
	pre, suf int

	ha, hb histogram  // lcsAtLeast's, reused
	shrink bandShrink // bitLCS's, reused
	seeds  seedBound  // bandShrink's, reused
}

// row returns the pattern mask row of r, -1 when r is not in the pattern.
func (mt *lcsMatcher) row(r rune) int {
	if r >= 0 && r < 128 {
		return int(mt.ascii[r]) - 1
	}
	if i, ok := mt.other[r]; ok {
		return int(i) - 1
	}
	return -1
}

// build prepares the masks of pattern a over words words, in one pass:
// a code point's row is numbered, and its words appended cleared, at its
// first occurrence. An ASCII code point's row is read from the table
// directly: through row, twice a code point, and in a pass of its own
// before the masks, building the masks of a kilobyte cost some ten cycles
// a code point.
func (mt *lcsMatcher) build(a []rune, words int) {
	mt.startBuild(words)
	mt.buildTo(a, len(a))
}

// startBuild begins the masks of a pattern over words words, with none
// of its code points: buildTo adds them, in order, up to a position.
// bitLCS builds a word's masks when its band first reaches the word, so
// that a pair that fails early (most of those that fail) builds only the
// masks its band used.
func (mt *lcsMatcher) startBuild(words int) { mt.startRows(false, words) }

// startRows is startBuild, its rows made at once when given (givenRows,
// from the sets pa and pb), else as met.
func (mt *lcsMatcher) startRows(given bool, words int) {
	clear(mt.other)
	mt.peq, mt.rows, mt.words, mt.built = mt.peq[:0], 0, words, 0
	mt.rowsGiven = given
	if given {
		if mt.ca != nil {
			mt.pa, mt.pb = asciiPresent(mt.ca), asciiPresent(mt.cb)
		}
		// givenRows sets the entries of pa's code points.
		mt.clearRows([2]uint64{mt.set[0] &^ mt.pa[0], mt.set[1] &^ mt.pa[1]})
		mt.givenRows()
		return
	}
	mt.clearRows(mt.set)
	mt.set = [2]uint64{}
}

// clearRows sets the ascii and rowBase entries of the code points of set
// to 0: startBuild's clear of the few a pattern set, where clearing all
// 128 of both tables (1.5 KB) cost some 190 instructions a bitLCS, more
// than its whole build on Gemini CLI's outputs that differ at once.
func (mt *lcsMatcher) clearRows(set [2]uint64) {
	for half, s := range set {
		for ; s != 0; s &= s - 1 {
			c := 64*half + bits.TrailingZeros64(s)
			mt.ascii[c], mt.rowBase[c] = 0, 0
		}
	}
}

// buildTo adds the code points of a before to to the masks (those before
// mt.built are in).
func (mt *lcsMatcher) buildTo(a []rune, to int) { buildTo(mt, a, to) }

// symbol is a code point as the LCS reads it: a rune, or a byte of a text
// that is all ASCII, each byte its code point. fuzzy_repeat compares two
// ASCII outputs (most agents' outputs) over their bytes, without decoding
// them into four bytes a byte (decodeRunes); the LCS's functions are
// instantiated for both.
type symbol interface{ byte | rune }

func buildTo[T symbol](mt *lcsMatcher, a []T, to int) {
	if b, ok := any(a).([]byte); ok {
		if mt.rowsGiven {
			buildBytes(mt, b, to)
		} else {
			buildBytesMet(mt, b[:to])
		}
		return
	}
	peq, words := mt.peq, mt.words
	a = a[:to] // spares the loop's bounds check
	for i := mt.built; i < len(a); i++ {
		// A word's run of code points at a time in assembly, where there
		// is (buildRunes, amd64): the loop below then takes the code point
		// it stopped at.
		if rs, ok := any(a).([]rune); ok {
			for i < len(rs) {
				w := i >> 6
				run := rs[i:min(len(rs), 64*w+64)]
				k, ok := buildRunes(mt, w, run, uint64(1)<<(uint(i)&63))
				i += k
				if !ok || k < len(run) {
					break
				}
			}
		}
		// The ASCII code points that have their row: a loop with no call
		// in it, whose values stay in registers. With the new rows' and
		// the map's calls in the same loop, it stored four of them to
		// the stack at every code point (a byte's mask cost some 25
		// instructions, where it now costs 9).
		for ; i < len(a); i++ {
			r := uint32(a[i])
			if r >= 128 {
				break
			}
			k := mt.ascii[r]
			if k == 0 {
				break
			}
			peq[int(k-1)*words+i>>6] |= 1 << (uint(i) & 63)
		}
		if i == len(a) {
			break
		}
		mt.peq = peq
		k := mt.symbolRow(rune(a[i]))
		peq = mt.peq
		peq[int(k-1)*words+i>>6] |= 1 << (uint(i) & 63)
	}
	mt.peq, mt.built = peq, max(mt.built, to)
}

// symbolRow returns r's row+1 in the masks, adding the row, its words
// cleared, when r has none yet.
func (mt *lcsMatcher) symbolRow(r rune) int32 {
	var k int32
	if uint32(r) < 128 {
		k = mt.ascii[r]
	} else {
		if mt.other == nil {
			mt.other = make(map[rune]int32)
		}
		k = mt.other[r]
	}
	if k != 0 {
		return k
	}
	mt.rows++
	k = int32(mt.rows)
	if uint32(r) < 128 {
		mt.ascii[r] = k
		mt.rowBase[r] = (mt.rows-1)*mt.words + 1
		mt.set[r>>6] |= 1 << (r & 63)
	} else {
		mt.other[r] = k
	}
	n := len(mt.peq)
	mt.peq = slices.Grow(mt.peq, mt.words)[:n+mt.words]
	clear(mt.peq[n:])
	return k
}

// lcsAtLeast returns LCS(a, b) and true when it is at least cutoff, and
// false when it is below (the length then is not computed). Only the
// diagonal band that an alignment reaching cutoff can use is computed, and
// the scan stops once cutoff is out of reach; a cutoff <= 0 computes the
// exact LCS.
func (mt *lcsMatcher) lcsAtLeast(a, b []rune, cutoff int) (int, bool) {
	return mt.lcsShared(a, b, cutoff, -1)
}

// lcsShared is lcsAtLeast where the caller knows how many code points a
// and b share (the sum over code points of the smaller count; -1 when it
// does not): fuzzy_repeat has counted them for its first test.
func (mt *lcsMatcher) lcsShared(a, b []rune, cutoff, shared int) (int, bool) {
	return lcsShared(mt, a, b, cutoff, shared)
}

// lcsBytes is lcsShared over the bytes of two ASCII texts, shorter than
// shrinkFrom (bitLCS narrows its band with a bandShrink, over code
// points, only from there): a byte is then a code point, and the LCS of
// the bytes that of the code points.
func (mt *lcsMatcher) lcsBytes(a, b string, cutoff, shared int) (int, bool) {
	return lcsShared(mt, unsafe.Slice(unsafe.StringData(a), len(a)), unsafe.Slice(unsafe.StringData(b), len(b)), cutoff, shared)
}

// commonAffix returns the length p of a's and b's common prefix, and s
// of the common suffix of what follows it in each (so p+s is at most the
// shorter's length): bytes eight at a time (commonAffixBytes), code
// points one at a time.
func commonAffix[T symbol](a, b []T) (p, s int) {
	if x, ok := any(a).([]byte); ok {
		return commonAffixBytes(x, any(b).([]byte))
	}
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	a, b = a[p:], b[p:]
	for s < len(a) && s < len(b) && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	return p, s
}

// commonAffixBytes is commonAffix of two byte strings, a word of eight
// bytes at a time, the first that differs told by its XOR's trailing
// (the prefix) or leading (the suffix) zero bytes: a byte at a time, the
// prefix of two outputs that share a long start (an OpenHands V0 log's
// near-duplicates) cost some six instructions a byte.
// TestCommonAffixBytes holds it to the byte loops.
func commonAffixBytes(a, b []byte) (p, s int) {
	n := min(len(a), len(b))
	for p+8 <= n {
		if x := binary.LittleEndian.Uint64(a[p:]) ^ binary.LittleEndian.Uint64(b[p:]); x != 0 {
			p += bits.TrailingZeros64(x) / 8
			goto suffix
		}
		p += 8
	}
	for p < n && a[p] == b[p] {
		p++
	}
suffix:
	a, b = a[p:], b[p:]
	n = min(len(a), len(b))
	for s+8 <= n {
		// The eight bytes that end s before each end: the last byte is
		// the word's highest.
		if x := binary.LittleEndian.Uint64(a[len(a)-s-8:]) ^ binary.LittleEndian.Uint64(b[len(b)-s-8:]); x != 0 {
			return p, s + bits.LeadingZeros64(x)/8
		}
		s += 8
	}
	for s < n && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	return p, s
}

func lcsShared[T symbol](mt *lcsMatcher, a, b []T, cutoff, shared int) (int, bool) {
	if cutoff > min(len(a), len(b)) {
		return 0, false
	}
	// A common prefix and suffix belong to some longest common subsequence.
	p, s := commonAffix(a, b)
	a, b = a[p:len(a)-s], b[p:len(b)-s]
	affix := p + s
	mt.pre, mt.suf = p, s
	if len(a) == 0 || len(b) == 0 {
		return affix, affix >= cutoff
	}
	if len(a) > len(b) {
		a, b = b, a // the shorter one is the pattern: fewer words
		mt.pa, mt.pb, mt.ca, mt.cb = mt.pb, mt.pa, mt.cb, mt.ca
	}
	c := max(cutoff-affix, 0)
	// The band, and so the cost, grows with the Indel distance allowed
	// (len(a)+len(b)-2·cutoff). Near-duplicates (a loop's outputs) are
	// far closer than the threshold allows: try budgets from small up,
	// doubling, so that their cost follows their own distance. A try
	// that succeeds is exact (its LCS reaches its cutoff, above c); one
	// that fails stops as soon as its budget is spent (bitLCS's bound).
	// The main diagonal's matches are an alignment, so its distance is a
	// budget that cannot fail: substitutions alone are settled at once.
	total := len(a) + len(b)
	allowed := total - 2*c
	// Only a diagonal distance under allowed is used (below, each use
	// compares it with allowed or with a budget under it): once that is
	// out of reach the count stops, and allowed stands for it.
	diag := allowed
	if x := allowed - (len(b) - len(a)); x > 0 {
		if m, ok := diagonalMatchesWithin(a, b, (x-1)/2); ok {
			diag = total - 2*m
		}
	}
	// No budget below the histogram distance can succeed (it bounds the
	// Indel distance from below); the diagonal's, when near it, is tried
	// first.
	start := 512
	if allowed/4 >= start {
		// The common prefix and suffix count in both the shared code
		// points and the lengths: the distance is the middles'.
		if shared < 0 {
			setSymbols(&mt.ha, a)
			setSymbols(&mt.hb, b)
			shared = affix + mt.ha.bound(&mt.hb)
		}
		start = max(start, total+2*affix-2*shared)
	}
	if diag <= 4*start && diag < allowed {
		// An alignment of this distance exists: the try cannot fail.
		n, _ := bitLCS(mt, a, b, (total-diag+1)/2)
		return affix + n, true
	}
	for budget := start; budget <= allowed/4; budget *= 2 {
		if budget >= diag {
			budget = diag
		}
		if n, ok := bitLCS(mt, a, b, (total-budget+1)/2); ok {
			return affix + n, true
		}
		if budget == diag {
			break // cannot happen: the diagonal's alignment reaches it
		}
	}
	n, ok := bitLCS(mt, a, b, c)
	return affix + n, ok
}

// diagonalMatchesWithin counts the positions where a and b agree, len(a)
// <= len(b), and says whether at most maxMiss of a's disagree; it stops
// at the first past maxMiss (the count is then not whole). The
// diagonal's distance len(a)+len(b)-2·matches is under the one allowed
// exactly when a has few enough positions that disagree: the outputs of
// a pair that fails mostly disagree at once.
func diagonalMatchesWithin[T symbol](a, b []T, maxMiss int) (int, bool) {
	if a8, ok := any(a).([]byte); ok {
		return diagonalBytesWithin(a8, any(b).([]byte), maxMiss)
	}
	b = b[:len(a)]
	miss := 0
	for i := range a {
		if a[i] != b[i] {
			if miss++; miss > maxMiss {
				return i + 1 - miss, false
			}
		}
	}
	return len(a) - miss, true
}

// diagonalBytesWithin is diagonalMatchesWithin over bytes (two ASCII
// texts, most of fuzzy_repeat's pairs): eight positions a step, the
// bytes that differ counted in the two words' difference (a byte's high
// bit set when any of its bits is), where a byte a step took some four
// instructions. It stops at the first word past maxMiss (the count is
// then not whole, as diagonalMatchesWithin's).
func diagonalBytesWithin(a, b []byte, maxMiss int) (int, bool) {
	b = b[:len(a)]
	const low7 = 0x7f7f7f7f7f7f7f7f
	miss, i := 0, 0
	for ; i+8 <= len(a); i += 8 {
		x := binary.LittleEndian.Uint64(a[i:]) ^ binary.LittleEndian.Uint64(b[i:])
		if x == 0 {
			continue
		}
		// A byte of x whose low seven bits are not all 0 carries into
		// its high bit; one that differs in its high bit has it set.
		miss += bits.OnesCount64(((x &^ ascii64) + low7 | x) & ascii64)
		if miss > maxMiss {
			return i - miss, false
		}
	}
	for ; i < len(a); i++ {
		if a[i] != b[i] {
			if miss++; miss > maxMiss {
				return i + 1 - miss, false
			}
		}
	}
	return len(a) - miss, true
}

// bitLCS is the banded bit-parallel LCS of pattern a (rows) and text b
// (columns), len(a) <= len(b), both non-empty, 0 <= cutoff <= len(a).
//
// An alignment with LCS >= cutoff leaves at most len(a)-cutoff rows and
// len(b)-cutoff columns unmatched, so at column j it lies on rows
// [j-(len(b)-cutoff), j+(len(a)-cutoff)]; only the words covering those rows
// (one row of slack each side) are updated, as rapidfuzz's banded LCS does.
// Words below the band keep their last value and carry nothing into it,
// words above it stay untouched: the result is exact when the LCS reaches
// cutoff and below cutoff otherwise (checked against the naive table, for
// cutoffs around the LCS, in the property and fuzz tests). From
// shrinkFrom code points a bandShrink narrows the band further, to the
// rows an alignment can still use within the budget.
func (mt *lcsMatcher) bitLCS(a, b []rune, cutoff int) (int, bool) { return bitLCS(mt, a, b, cutoff) }

func bitLCS[T symbol](mt *lcsMatcher, a, b []T, cutoff int) (int, bool) {
	m, n := len(a), len(b)
	words := (m + 63) / 64
	mt.startRows(mt.given && m >= givenRowsFrom, words)
	if cap(mt.v) < words {
		mt.v = make([]uint64, words)
	}
	v := mt.v[:words]
	for i := range v {
		v[i] = ^uint64(0)
	}
	left, right := m-cutoff, n-cutoff // unmatched rows, unmatched columns allowed
	first, last := 0, min(words, (left+2+63)/64)
	// below counts the zero bits of the words under the band: they no
	// longer change.
	below, counted := 0, 0
	var sh *bandShrink
	if ra, ok := any(a).([]rune); ok && cutoff > 0 && m >= shrinkFrom {
		// bandShrink numbers its code points after the masks' rows: all
		// of them, made first, at once from the pattern's counts when
		// they are given (rowsCounted; the masks then built as the band
		// reaches them), else built. (Bytes are compared only below
		// shrinkFrom: lcsBytes.)
		if mt.whole != nil {
			mt.rowsCounted()
		} else {
			buildTo(mt, a, m)
		}
		sh = mt.newShrink(ra, any(b).([]rune), m+n-2*cutoff, -left-1, right+1)
	}
	// The words under last are built: a code point of b not yet met in
	// a (row -1) has no bit in them.
	buildTo(mt, a, min(m, 64*last))
	capLast := words // the band's top is held under capLast (sh)
	for j := 0; j < n; {
		// The columns before end keep the band [first, last): it moves
		// after column j' only when j' ends a block of 64 columns (the
		// checks below), reaches the next word's rows at the bottom
		// (j'-right >= 64·(first+1)) or at the top (j'+left+3 > 64·last,
		// while last can grow). The updates between are no-ops and are
		// not run: per column they cost more than a narrow band's words.
		end := min(n, (j|63)+1, right+64*(first+1)+1)
		if last < min(capLast, words) {
			end = min(end, 64*last-left-1)
		}
		end = max(end, j+1)
		columns(mt, v, first, last, b[j:end], sh)
		j = end - 1 // the run's last column, after which the band may move
		// The band for column j+1.
		if lo := j + 1 - right - 1; lo > 0 {
			first = max(first, lo/64)
		}
		top := words
		if hi := j + 1 + left + 2; hi < m {
			top = (hi + 63) / 64
		}
		last = max(last, min(top, capLast))
		if 64*last > mt.built && mt.built < m {
			buildTo(mt, a, min(m, 64*last))
		}
		if sh != nil && j%64 == 63 {
			// Narrow the band to the rows an alignment within the budget
			// can use (bandShrink); the bottom for good, the top for the
			// next 64 columns.
			for first < last && sh.belowOut(first, j+1, zeros(v[first:first+1], 64), below+zerosUpTo(v, counted, first)) {
				first++
			}
			if first >= last {
				return 0, false
			}
			capLast = sh.topCap(last, min(words, top+1), j+1, below+zerosUpTo(v, counted, first)+zeros(v[first:last], (last-first)*64))
		}
		// Stop when no alignment can still reach cutoff. With k columns
		// left, a path at row i ends with at most D[i] + min(m-i, k),
		// which is largest at i* = m-k (D grows by at most one a row):
		// below it, D[i*] + k; above it, m-i falls as fast as D can rise.
		if cutoff > 0 && j%64 == 63 {
			for ; counted < first; counted++ {
				below += zeros(v[counted:counted+1], 64)
			}
			k := n - 1 - j
			if k == 0 {
				// The last column: the count below decides.
			} else if i := m - k; i <= 0 {
				if k < cutoff {
					return 0, false
				}
			} else if w := i / 64; w >= first {
				d := below + zeros(v[first:w], (w-first)*64)
				if rest := i % 64; rest > 0 {
					d += zeros(v[w:w+1], rest)
				}
				if d+k < cutoff {
					return 0, false
				}
			} else if zeros(v, m)+k < cutoff {
				return 0, false
			}
		}
		j++
	}
	l := zeros(v, m)
	return l, l >= cutoff
}

// zerosUpTo counts the zero bits of the words [from, to) of v.
func zerosUpTo(v []uint64, from, to int) int {
	if to <= from {
		return 0
	}
	return zeros(v[from:to], (to-from)*64)
}

// zeros counts the zero bits among the first m bits of v.
func zeros(v []uint64, m int) int {
	z := 0
	for w, x := range v {
		x = ^x
		if rest := m - w*64; rest < 64 {
			x &= 1<<rest - 1
		}
		z += bits.OnesCount64(x)
	}
	return z
}

// LCS is the length of the longest common subsequence of a and b over code
// points (an invalid UTF-8 byte is one U+FFFD code point).
func LCS(a, b string) int {
	var mt lcsMatcher
	n, _ := mt.lcsAtLeast([]rune(a), []rune(b), 0)
	return n
}

// Similarity is the Indel ratio 2·LCS/(len(a)+len(b)) over code points,
// 1.0 for two empty strings (RULES.md §8).
func Similarity(a, b string) float64 {
	ra, rb := []rune(a), []rune(b)
	if len(ra)+len(rb) == 0 {
		return 1
	}
	var mt lcsMatcher
	n, _ := mt.lcsAtLeast(ra, rb, 0)
	return float64(2*n) / float64(len(ra)+len(rb))
}

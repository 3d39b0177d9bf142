package detect

// The pattern masks of an LCS over the bytes of two ASCII texts
// (lcsBytes): their rows made at once from the code points the texts'
// histograms count, and the bytes' bits set a word at a time.

import "math/bits"

// lcsBytesRows is lcsBytes for a caller that knows the ASCII code points
// of a and of b (pa and pb, bit c for code point c; fuzzy_repeat reads
// them from the histograms of its first test): each bitLCS makes the
// pattern's rows at once (givenRows), where buildBytes stopped at each
// code point's first occurrence to make its row (symbolRow: some 90
// instructions a row, rows a third of the masks' cost on the steps log).
// The sets need not be right: a code point with no row is given one as
// it is met, and a row no byte sets stays empty, as a code point absent
// from the pattern leaves its column's words (TestLCSBytesRows).
func (mt *lcsMatcher) lcsBytesRows(a, b string, cutoff, shared int, pa, pb [2]uint64) (int, bool) {
	mt.given, mt.pa, mt.pb = true, pa, pb
	n, ok := mt.lcsBytes(a, b, cutoff, shared)
	mt.given = false
	return n, ok
}

// givenRows makes, at startBuild, a row for each code point of the
// pattern's text (pa) that the other text has too (pb), in the order of
// the code points, its words cleared; the pattern's code points that the
// other text lacks set their bits in one row more, which no column reads
// (their ascii stays 0, as a code point's with no row): none of their
// bits can match.
func (mt *lcsMatcher) givenRows() {
	both := [2]uint64{mt.pa[0] & mt.pb[0], mt.pa[1] & mt.pb[1]}
	lone := [2]uint64{mt.pa[0] &^ mt.pb[0], mt.pa[1] &^ mt.pb[1]}
	rows := bits.OnesCount64(both[0]) + bits.OnesCount64(both[1])
	if lone != [2]uint64{} {
		rows++
	}
	words := mt.words
	n := rows * words
	if cap(mt.peq) < n {
		mt.peq = make([]uint64, n, n+8*words) // room for rows met later
	} else {
		mt.peq = mt.peq[:n]
		clear(mt.peq)
	}
	k := 0
	for half, set := range both {
		for ; set != 0; set &= set - 1 {
			c := 64*half + bits.TrailingZeros64(set)
			mt.ascii[c] = int32(k + 1)
			mt.rowBase[c] = k*words + 1
			k++
		}
	}
	for half, set := range lone {
		for ; set != 0; set &= set - 1 {
			mt.rowBase[64*half+bits.TrailingZeros64(set)] = k*words + 1
		}
	}
	mt.rows = rows
}

// buildBytes is buildTo over bytes (lcsBytes's ASCII texts, most of
// fuzzy_repeat's patterns): a byte indexes rowBase as it is (256 long),
// so that one test stops at a byte that is not ASCII or has no row yet,
// and its first mask is read there too, where buildTo's loop took a test
// more, a sign extension and a multiplication a byte (cachegrind, the
// steps log's first 20 MB: buildTo over bytes 11.6 M instructions,
// buildBytes 7.5 M and symbolRow 2.5 M). The bytes are taken a word's 64
// at a time, the word and the bit carried along, where each byte's were
// computed from its position: with the rows given (givenRows) the loop
// rarely stops, and it costs some 14 instructions a byte, where the loop
// a byte cost 16 (steps 357.24 -> 356.48 M); stopping at each new code
// point, it cost more (+0.8 M), the run sliced anew at each stop.
func buildBytes(mt *lcsMatcher, a []byte, to int) {
	a = a[:to]
	for i := mt.built; i < len(a); {
		w := i >> 6
		bit := uint64(1) << (uint(i) & 63)
		run := a[i:min(len(a), 64*w+64)] // the rest of word w's bytes
		peq, k := mt.peq, 0
		for ; k < len(run); k++ {
			base := mt.rowBase[run[k]]
			if base == 0 {
				break
			}
			peq[base-1+w] |= bit
			bit <<= 1
		}
		i += k
		if k < len(run) {
			r := mt.symbolRow(rune(run[k]))
			mt.peq[int(r-1)*mt.words+w] |= bit
			i++
		}
	}
	mt.built = max(mt.built, to)
}

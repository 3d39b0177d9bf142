package detect

// The pattern masks of an LCS over the bytes of two ASCII texts
// (lcsBytes): their rows made at once from the code points the texts'
// histograms count, and the bytes' bits set a word at a time.

import "math/bits"

// lcsBytesRows is lcsBytes for a caller that has counted the ASCII code
// points of a and of b (ca and cb, a histogram's; fuzzy_repeat's first
// test counts them): each bitLCS of a pattern of givenRowsFrom bytes or
// more makes its rows at once (givenRows) from the code points counted
// (asciiPresent, only then: most shorter patterns' calls stop before),
// where buildBytes stopped at each code point's first occurrence to make
// its row (symbolRow: some 90 instructions a row, rows a third of the
// masks' cost on the steps log). The pattern's counts need not be whole:
// a code point with no row is given one as it is met, and a row no byte
// sets stays empty, as a code point absent from the pattern leaves its
// column's words; the other's must count the code points it shares with
// the pattern (TestLCSBytesRows).
func (mt *lcsMatcher) lcsBytesRows(a, b string, cutoff, shared int, ca, cb *[256]int32) (int, bool) {
	mt.given, mt.ca, mt.cb = true, ca, cb
	n, ok := mt.lcsBytes(a, b, cutoff, shared)
	mt.given, mt.ca, mt.cb = false, nil, nil
	return n, ok
}

// lcsBytesPresent is lcsBytesRows for two texts whose code points are
// given as sets (pa, pb: bit c for code point c), where their counts are
// not int32 (fuzzy_repeat's byte counts of short outputs): a text shorter
// than shrinkFrom reads only which code points its counts hold.
func (mt *lcsMatcher) lcsBytesPresent(a, b string, cutoff, shared int, pa, pb [2]uint64) (int, bool) {
	mt.given, mt.pa, mt.pb = true, pa, pb
	n, ok := mt.lcsBytes(a, b, cutoff, shared)
	mt.given = false
	return n, ok
}

// givenRowsFrom is the pattern's length from which bitLCS makes its rows
// at once (givenRows), when they are given. Shorter patterns are mostly
// the few bytes two outputs differ by past their common prefix and
// suffix (a count, a time: Gemini CLI's .json, 20,638 of its 23,265 LCSs
// over bytes, one byte long on average, where both outputs have some 23
// code points): a row for each of the outputs' code points cost more
// than the rows of the few code points met.
const givenRowsFrom = 16

// givenRows makes, at startRows, a row for each code point of the
// pattern's text (pa) that the other text has too (pb), in the order of
// the code points, its words cleared; the pattern's code points that the
// other text lacks set their bits in one row more, which no column reads
// (their ascii is 0, as a code point's with no row): none of their bits
// can match. It sets the entries of all of pa's code points (startRows
// clears only the others that were set).
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
			c := 64*half + bits.TrailingZeros64(set)
			mt.ascii[c], mt.rowBase[c] = 0, k*words+1
		}
	}
	mt.rows = rows
	mt.set = mt.pa
}

// buildBytes is buildTo over bytes (lcsBytes's ASCII texts, most of
// fuzzy_repeat's patterns): a byte indexes rowBase as it is (256 long),
// so that one test stops at a byte that is not ASCII or has no row yet,
// and its first mask is read there too, where buildTo's loop took a test
// more, a sign extension and a multiplication a byte (cachegrind, the
// steps log's first 20 MB: buildTo over bytes 11.6 M instructions,
// buildBytes 7.5 M and symbolRow 2.5 M). The bytes are taken a word's 64
// at a time, the word and the bit carried along, where each byte's were
// computed from its position (a word's run through buildRun, in
// assembly on amd64): with the rows given (givenRows) the loop
// rarely stops, and it costs some 14 instructions a byte, where the loop
// a byte cost 16 (steps 357.24 -> 356.48 M); stopping at each new code
// point, it cost more (+0.8 M), the run sliced anew at each stop.
func buildBytes(mt *lcsMatcher, a []byte, to int) {
	a = a[:to]
	for i := mt.built; i < len(a); {
		w := i >> 6
		bit := uint64(1) << (uint(i) & 63)
		run := a[i:min(len(a), 64*w+64)] // the rest of word w's bytes
		// Word w of each row, a row's at its base less one: the word's
		// index is then the base's alone, where base-1+w was computed
		// twice a byte (the bounds test's and the store's) and a register
		// spilled for it. Word w of the first row exists: a byte before
		// it made a row.
		k, ok := buildRun(mt, w, run, bit)
		if ok {
			bit <<= uint(k) & 63
		} else {
			peq, rows := mt.peq[min(w, len(mt.peq)):], &mt.rowBase
			for ; k < len(run); k++ {
				base := rows[run[k]]
				if base == 0 {
					break
				}
				peq[base-1] |= bit
				bit <<= 1
			}
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

// buildBytesMet is buildBytes where a code point's row is made as it is
// first met (symbolRow): a byte at a time, its bit from its position, so
// that a stop costs no more than the call, where the run of a word's
// bytes was sliced anew at each.
func buildBytesMet(mt *lcsMatcher, a []byte) {
	for i := mt.built; i < len(a); i++ {
		peq := mt.peq
		for ; i < len(a); i++ {
			base := mt.rowBase[a[i]]
			if base == 0 {
				break
			}
			peq[base-1+i>>6] |= 1 << (uint(i) & 63)
		}
		if i == len(a) {
			break
		}
		k := mt.symbolRow(rune(a[i]))
		mt.peq[int(k-1)*mt.words+i>>6] |= 1 << (uint(i) & 63)
	}
	mt.built = max(mt.built, len(a))
}

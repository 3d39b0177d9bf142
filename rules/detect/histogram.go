package detect

import (
	"unicode/utf8"
	"unsafe"
)

// histogram counts a text's code points: the sum over code points of the
// smaller count bounds the LCS of two texts from above.
type histogram struct {
	// ascii counts the ASCII code points; the other 128 stay zero. A
	// byte indexes it without a bounds check: setASCII counts a byte
	// of a word as it is, without masking it.
	ascii   [256]int32
	present []uint8 // the ASCII code points counted, each once
	// unlisted says present is not listed yet (setASCII): bound lists it
	// when it needs it; boundAtLeast, fuzzy_repeat's, reads all the
	// counts instead.
	unlisted bool
	other    map[rune]int32
}

// set makes h the counts of rs. A text of setScanFrom code points or
// more, most of an agent's outputs compared, is counted four ASCII code
// points at a time, without a branch, and the code points present listed
// after from the 128 counts: noting each one's first occurrence as it was
// counted put a test of the count just loaded, and a branch, on every
// code point, and a kilobyte took twice as long (BenchmarkHistogramSet).
// A shorter text costs less noted as it is counted than the scan of 128.
func (h *histogram) set(rs []rune) {
	a := h.empty()
	if len(rs) < setScanFrom {
		for _, r := range rs {
			if uint32(r) < utf8.RuneSelf {
				if a[r] == 0 {
					h.present = append(h.present, uint8(r))
				}
				a[r]++
				continue
			}
			h.addOther(r)
		}
		return
	}
	for i := 0; i < len(rs); {
		if i+4 <= len(rs) {
			r := rs[i : i+4 : i+4]
			if uint32(r[0]|r[1]|r[2]|r[3]) < utf8.RuneSelf {
				// The masks only spare the bounds checks: each is < 128.
				a[r[0]&127]++
				a[r[1]&127]++
				a[r[2]&127]++
				a[r[3]&127]++
				i += 4
				continue
			}
		}
		r := rs[i]
		i++
		if uint32(r) < utf8.RuneSelf {
			a[r]++
			continue
		}
		h.addOther(r)
	}
	h.listPresent()
}

// setSymbols is set of a's code points: runes, or the bytes of an ASCII
// text.
func setSymbols[T symbol](h *histogram, a []T) {
	switch x := any(a).(type) {
	case []rune:
		h.set(x)
	case []byte:
		h.setString(unsafe.String(unsafe.SliceData(x), len(x)))
	}
}

// empty clears the counts of the code points present, and returns the
// ASCII counts.
//
// The list of the code points present has room for 256 (setString writes
// past its end; listPresent indexes it by a byte), made once.
func (h *histogram) empty() *[256]int32 {
	a := &h.ascii
	if h.unlisted || len(h.present) > 16 {
		clear(a[:128]) // a few wide stores, where as many as present
	} else {
		for _, c := range h.present {
			a[c] = 0
		}
	}
	if cap(h.present) < 256 {
		h.present = make([]uint8, 0, 256)
	}
	h.present, h.unlisted = h.present[:0], false
	clear(h.other)
	return a
}

// setString is set of the code points of s as ranging over s reads them
// (an invalid byte as U+FFFD), counted from its bytes: fuzzy_repeat
// counts an output without decoding it. A text of setStringScanFrom bytes or
// more is counted eight ASCII bytes at a time, as set counts four code
// points.
func (h *histogram) setString(s string) {
	a := h.empty()
	if len(s) < setStringScanFrom {
		// Each code point is written at the end of the list, which
		// moves on only at its first occurrence: a branch on the count
		// was mispredicted at a text's every new code point.
		p, k := h.present[:cap(h.present)], 0
		for i := 0; i < len(s); {
			if c := s[i]; c < utf8.RuneSelf {
				n := a[c]
				p[k] = c
				k += int(uint32(n-1) >> 31) // n == 0: counts are never negative
				a[c] = n + 1
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(s[i:])
			h.addOther(r)
			i += size
		}
		h.present = p[:k]
		return
	}
	for i := 0; i < len(s); {
		if i+8 <= len(s) {
			if x := load64(s, i); x&ascii64 == 0 {
				// The masks only spare the bounds checks: each is < 128.
				a[x&127]++
				a[x>>8&127]++
				a[x>>16&127]++
				a[x>>24&127]++
				a[x>>32&127]++
				a[x>>40&127]++
				a[x>>48&127]++
				a[x>>56&127]++
				i += 8
				continue
			}
		}
		if c := s[i]; c < utf8.RuneSelf {
			a[c]++
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		h.addOther(r)
		i += size
	}
	h.listPresent()
}

// setASCII is setString of an ASCII text (fuzzyEntry.ascii): no byte is
// tested for the others, and a byte indexes the counts as it is (256
// long), without a bounds check or a mask (countASCII: some 2.2
// instructions a byte on amd64, where setString's cost 4.5). A byte that
// is not ASCII, which the caller rules out, is counted where no bound
// reads it. The code points present are not listed: boundAtLeast,
// fuzzy_repeat's only bound, reads all 128 counts by vector
// (asciiShared), and bound lists them when it needs them. Listed as they
// were counted, a short text's bytes cost eleven instructions each.
func (h *histogram) setASCII(s string) {
	if cap(h.present) < 256 {
		h.present = make([]uint8, 0, 256) // listPresent's room
	}
	h.present, h.unlisted = h.present[:0], true // listed by bound, if ever
	if len(h.other) != 0 {
		clear(h.other)
	}
	countASCII(&h.ascii, s) // the 128 cleared, as empty clears an unlisted histogram's
}

// countASCIIGo is countASCII in Go: the code of the platforms without the
// assembly loops, and their tests' reference.
func countASCIIGo(a *[256]int32, s string) {
	clear(a[:128])
	i := 0
	for ; i+8 <= len(s); i += 8 {
		// Each byte loaded on its own: its load is its zero extension,
		// where a byte of a word loaded whole took a copy, a shift and
		// an extension.
		w := s[i : i+8]
		a[w[0]]++
		a[w[1]]++
		a[w[2]]++
		a[w[3]]++
		a[w[4]]++
		a[w[5]]++
		a[w[6]]++
		a[w[7]]++
	}
	for ; i < len(s); i++ {
		a[s[i]]++
	}
}

// listPresent lists the ASCII code points counted, in order. Each is
// written at the end of the list, which moves on when it is counted: a
// branch on each of the 128 counts was mispredicted at random in a text
// of many different code points (BenchmarkHistogramSetString).
func (h *histogram) listPresent() {
	// k, a byte, indexes the list's 256 without a bounds check (at most
	// 128 are listed); four counts a round spare three loop tests.
	p, k := (*[256]uint8)(h.present[:256]), uint8(0)
	a := &h.ascii
	for c := 0; c < 128; c += 4 {
		p[k] = uint8(c)
		k += uint8(uint32(-a[c]) >> 31) // n > 0: counts are never negative
		p[k] = uint8(c + 1)
		k += uint8(uint32(-a[c+1]) >> 31)
		p[k] = uint8(c + 2)
		k += uint8(uint32(-a[c+2]) >> 31)
		p[k] = uint8(c + 3)
		k += uint8(uint32(-a[c+3]) >> 31)
	}
	h.present = p[:k]
}

// setScanFrom is the length of text from which set lists the code points
// present after counting them (measured: 40 code points are counted
// faster noting them as they come, 64 the other way).
const setScanFrom = 56

// setStringScanFrom is setScanFrom for setString, whose texts as short
// note their code points without a branch: 80 bytes are counted faster
// noted as they come (~105 against ~120 ns), 96 either way
// (BenchmarkHistogramSetString).
const setStringScanFrom = 96

func (h *histogram) addOther(r rune) {
	if h.other == nil {
		h.other = make(map[rune]int32)
	}
	h.other[r]++
}

func (h *histogram) bound(o *histogram) int {
	if h.unlisted {
		// The sum of the smaller counts is over either side's code
		// points: a listed side's, else h's, listed now.
		if o.unlisted {
			h.listPresent()
			h.unlisted = false
		} else {
			h, o = o, h
		}
	}
	n := 0
	for _, c := range h.present {
		n += int(min(h.ascii[c], o.ascii[c]))
	}
	small, large := h.other, o.other
	if len(small) > len(large) {
		small, large = large, small
	}
	for r, c := range small {
		n += int(min(c, large[r]))
	}
	return n
}

// boundAtLeast is bound where only a sum of cutoff or more matters
// (fuzzy_repeat's test before an LCS). It returns the sum and true when
// it is cutoff or more, else false. The ASCII counts are summed by vector,
// all 128 (asciiShared): neither side need be listed.
func (h *histogram) boundAtLeast(o *histogram, cutoff int) (int, bool) {
	n := asciiShared(&h.ascii, &o.ascii)
	if len(h.other) != 0 && len(o.other) != 0 {
		small, large := h.other, o.other
		if len(small) > len(large) {
			small, large = large, small
		}
		for r, c := range small {
			n += int(min(c, large[r]))
		}
	}
	return n, n >= cutoff
}

// asciiSharedGo is asciiShared a code point at a time: the code of the
// platforms without the vector loops, and their tests' reference.
func asciiSharedGo(h, o *[256]int32) int {
	n := 0
	for c := range 128 {
		n += int(min(h[c], o[c]))
	}
	return n
}

// asciiPresentGo is asciiPresent a count at a time: the code of the
// platforms without the vector loop, and its test's reference.
func asciiPresentGo(a *[256]int32) [2]uint64 {
	var p [2]uint64
	for c := range 128 {
		if a[c] != 0 {
			p[c>>6] |= 1 << (c & 63)
		}
	}
	return p
}

package detect

// An output's text as fuzzy_repeat reads it: whether one output nests
// in another, its code points decoded and counted, eight bytes at a
// time while they are ASCII.

import "unicode/utf8"

// nested says the shorter of a and b, valid UTF-8 both, is a common prefix
// and a common suffix of the longer, cut between code points: an output
// that repeats the one before with lines added or cut at one place. A
// common prefix and suffix belong to some LCS, so the shorter's code
// points are then the LCS; lcsShared finds it by the same cut, over the
// code points (TestNestedAsLCS).
func nested(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	p := 0
	for p+8 <= len(a) && load64(a, p) == load64(b, p) {
		p += 8
	}
	for p < len(a) && a[p] == b[p] {
		p++
	}
	if p == len(a) {
		return true // a whole: the cut is a's end, a code point boundary
	}
	// The code point holding the first byte that differs is not common:
	// the prefix ends where it starts (b's starts there too, the bytes
	// before being a's).
	for p > 0 && !utf8.RuneStart(a[p]) {
		p--
	}
	// The rest of a must be b's end: its first byte starts a code point,
	// and so starts one in b.
	return a[p:] == b[len(b)-(len(a)-p):]
}

// decodeRunes writes the code points of s to rs (len(rs) >= len(s)) as
// ranging over s reads them (an invalid byte as U+FFFD) and returns how
// many. Eight ASCII bytes, most of an agent's output, are tested and
// written at a time: the range loop's test and store a byte was most of
// Step's own time. From 32 bytes on, whole blocks of 32 ASCII bytes are
// widened by vector first (widenASCII, on amd64 with AVX2), and after a
// block that is not ASCII the next 32 bytes are decoded here before the
// vector loop is tried again: some 0.5 instructions a byte where the
// eight-byte step took some 5.
func decodeRunes(rs []rune, s string) int {
	k := 0
	for i := 0; i < len(s); {
		if len(s)-i >= 32 {
			n := widenASCII(rs[k:], s[i:])
			i, k = i+n, k+n
		}
		for stop := min(len(s), i+32); i < stop; {
			if i+8 <= len(s) {
				b := s[i : i+8]
				if (b[0]|b[1]|b[2]|b[3]|b[4]|b[5]|b[6]|b[7])&0x80 == 0 {
					r := rs[k : k+8 : k+8]
					r[0], r[1], r[2], r[3] = rune(b[0]), rune(b[1]), rune(b[2]), rune(b[3])
					r[4], r[5], r[6], r[7] = rune(b[4]), rune(b[5]), rune(b[6]), rune(b[7])
					i, k = i+8, k+8
					continue
				}
			}
			if c := s[i]; c < utf8.RuneSelf {
				rs[k] = rune(c)
				i++
			} else {
				r, size := utf8.DecodeRuneInString(s[i:])
				rs[k] = r
				i += size
			}
			k++
		}
	}
	return k
}

// countRunes returns the code points of s as ranging over s reads them
// (an invalid byte as one U+FFFD) and whether s is valid UTF-8. ASCII
// bytes, most of an agent's output, are tested 32 and 8 at a time, and
// the last fewer than 8 with the 8 bytes that end s: byte by byte, the
// few bytes after the last 16 took as long as 48 before them. Each
// stride is a loop of its own, which counts the ASCII bytes it passes by
// where it stops: the one loop tested the string's end twice and added
// to the count at every step.
//
// An output of asciiBlocksFrom bytes or more has its ASCII prefix
// measured by asciiBlocks first (64 bytes a step, on amd64).
func countRunes(s string) (n int, valid bool) {
	valid = true
	i := 0
	if len(s) >= asciiBlocksFrom {
		i = asciiBlocks(s)
		n = i
	}
	for i < len(s) {
		from := i
		for ; i+32 <= len(s); i += 32 {
			// Sliced once: the four words' loads need no test of their
			// own against the string's end.
			if w := s[i : i+32]; (load64(w, 0)|load64(w, 8)|load64(w, 16)|load64(w, 24))&ascii64 != 0 {
				break
			}
		}
		for ; i+8 <= len(s); i += 8 {
			if load64(s, i)&ascii64 != 0 {
				break
			}
		}
		n += i - from
		if i+8 > len(s) && len(s) >= 8 && load64(s, len(s)-8)&ascii64 == 0 {
			// The rest, under 8 bytes, ASCII (the bytes before it
			// were counted): a code point each.
			return n + len(s) - i, valid
		}
		if i == len(s) {
			break
		}
		if s[i] < utf8.RuneSelf {
			i++
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				valid = false
			}
			i += size
		}
		n++
	}
	return n, valid
}

// load64 is s[i:i+8] as a little-endian word: the compiler makes it one
// load, where testing the eight bytes one by one loaded each.
func load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// ascii64 has the high bit of each byte of a word: none is set in eight
// ASCII bytes.
const ascii64 = 0x8080808080808080

package detect

import (
	"math/bits"
	"unicode/utf8"
)

// The regular expressions of seed 004's extractSignature, matched by hand
// with Go RE2's leftmost-first semantics (RULES.md §8 Readings: ASCII \w
// \d \s, (?i), `.` anything but \n), so that a step's output is scanned
// without backtracking or allocation. The expressions are kept in
// signature_test.go as the reference; TestSignatureMatchersRandom and
// FuzzSignatureMatchers check each matcher against its expression.
//
// (?i) folds a letter to its ASCII other case, and two letters further:
// k to U+212A (Kelvin sign) and s to U+017F (long s). Of the patterns'
// words only "tests" and the extensions ts and js hold either, but \w
// holds both.

// isReSpace is RE2's \s: [\t\n\f\r ] (no \v). One compare tells most
// bytes (those past ' '), then a bit of reSpaces the rest, where the five
// compares of each byte with a white space took some 8 instructions a
// byte of endNonSpace's run. TestIsReSpace holds it to the five.
func isReSpace(c byte) bool { return c <= ' ' && reSpaces>>c&1 != 0 }

const reSpaces = 1<<' ' | 1<<'\t' | 1<<'\n' | 1<<'\f' | 1<<'\r'

// wordLen is the length of the \w character at s[i:], 0 for none: under
// (?i), RE2's \w is [0-9A-Za-z_] and the letters that fold to them, ſ and
// K.
func wordLen(s string, i int) int {
	if i >= len(s) {
		return 0
	}
	switch c := s[i]; {
	case c >= '0' && c <= '9', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		return 1
	case c == 0xC5 && i+1 < len(s) && s[i+1] == 0xBF:
		return 2
	case c == 0xE2 && i+2 < len(s) && s[i+1] == 0x84 && s[i+2] == 0xAA:
		return 3
	}
	return 0
}

// endWord is the end of the \w run at i: its ASCII bytes told by
// asciiWord in the loop, the others by wordLen (not inlined: a call
// each byte). TestEndWordAsWordLen holds it to wordLen's loop.
func endWord(s string, i int) int {
	for i < len(s) {
		if asciiWord[s[i]] {
			i++
			continue
		}
		n := wordLen(s, i)
		if n == 0 {
			break
		}
		i += n
	}
	return i
}

// asciiWord says a byte is an ASCII \w: [0-9A-Za-z_].
var asciiWord = func() (t [256]bool) {
	for c := range utf8.RuneSelf {
		t[c] = c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
	}
	return t
}()

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func skipReSpace(s string, i int) int {
	for i < len(s) && isReSpace(s[i]) {
		i++
	}
	return i
}

// endNonSpace is the end of the \S run at i: any byte but \s, since a
// multi-byte character's bytes are none of them.
func endNonSpace(s string, i int) int {
	for i < len(s) && !isReSpace(s[i]) {
		i++
	}
	return i
}

// foldWord is foldLen of a word of up to eight letters, given also as
// its bytes packed in a word (little-endian; the packed constants): with
// eight bytes of s at i, one compare of them folded to lower case tells
// a match of its letters, and a byte that differs tells no match unless
// it may open ſ or K (foldLen, byte by byte, would stop at that byte
// too), where foldLen took some ten instructions a letter.
// TestFoldWordAsFoldLen holds it to foldLen.
func foldWord(s string, i int, word string, packed uint64) int {
	if i >= 0 && i+8 <= len(s) {
		const lower = 0x2020202020202020
		if m := (load64(s, i) | lower ^ packed) & (1<<(8*len(word)) - 1); m == 0 {
			return len(word)
		} else if c := s[i+bits.TrailingZeros64(m)/8]; c != 0xC5 && c != 0xE2 {
			return 0
		}
	}
	return foldLen(s, i, word)
}

// foldAt is foldLen(s, t, "at") > 0 for t+1 < len(s) (both places that
// look for "at" have a byte after t): neither letter folds beyond ASCII,
// so two bytes tell it, where the call of foldWord tested eight.
// TestFoldAtAsFoldLen holds it to foldLen.
func foldAt(s string, t int) bool { return s[t]|0x20 == 'a' && s[t+1]|0x20 == 't' }

// The words foldWord is asked for, packed.
const (
	packedError = uint64('e') | 'r'<<8 | 'r'<<16 | 'o'<<24 | 'r'<<32
	packedFail  = uint64('f') | 'a'<<8 | 'i'<<16 | 'l'<<24
	packedTest  = uint64('t') | 'e'<<8 | 's'<<16 | 't'<<24
)

// foldLen returns the length of the match of word (lower-case ASCII
// letters) at s[i:] under (?i), 0 for none.
func foldLen(s string, i int, word string) int {
	j := i
	for k := 0; k < len(word); k++ {
		w := word[k]
		switch {
		case j < len(s) && s[j]|0x20 == w && s[j] >= 'A':
			// b|0x20 equals a lower-case letter only for that letter and
			// its upper case (the >= 'A' rules out the control bytes).
			j++
		case w == 's' && j+1 < len(s) && s[j] == 0xC5 && s[j+1] == 0xBF: // ſ
			j += 2
		case w == 'k' && j+2 < len(s) && s[j] == 0xE2 && s[j+1] == 0x84 && s[j+2] == 0xAA: // K
			j += 3
		default:
			return 0
		}
	}
	return j - i
}

// matchSigError is `(?i)Error:?\s*(\w+).*?at\s*(\S+)`: the word and the
// location. From an "error", `:?` and `\s*` are forced (what follows
// them starts no \w), \w+ is tried longest first and `.*?` shortest
// first: the first "at" on the line after the whole word whose `\s*` is
// followed by a \S; failing that, the last such "at" inside the word,
// which then ends where it starts.
func matchSigError(s string, from int) (word, loc string, ok bool) {
	for i := from; i+5 <= len(s); i++ {
		if i = skipToFold3(s, i, 'e', 'r', 'r'); i+5 > len(s) {
			break
		}
		if s[i]|0x20 != 'e' || s[i+1]|0x20 != 'r' || foldWord(s, i, "error", packedError) == 0 {
			continue
		}
		p := i + 5
		if p < len(s) && s[p] == ':' {
			p++
		}
		p = skipReSpace(s, p)
		q := endWord(s, p)
		if q == p {
			continue
		}
		// "at" is looked for to the line's end, eight positions at a
		// time; the test of its first letter, which foldLen's match
		// needs ('a' has no fold beyond ASCII), spares the call where
		// fewer bytes are left.
		for t := q; ; t++ {
			if t = skipToAtOrNewline(s, t); t+1 >= len(s) || s[t] == '\n' {
				break
			}
			if foldAt(s, t) {
				if u := skipReSpace(s, t+2); u < len(s) {
					return s[p:q], s[u:endNonSpace(s, u)], true
				}
			}
		}
		for t := q - 2; t > p; t-- {
			if foldAt(s, t) {
				if u := skipReSpace(s, t+2); u < len(s) {
					return s[p:t], s[u:endNonSpace(s, u)], true
				}
			}
		}
	}
	return "", "", false
}

// skipToFold3 returns the first index from i on at which s may hold the
// lower-case ASCII letters a, b, c in any ASCII case, eight positions at
// a time while ten bytes are left, i itself when fewer are (the caller
// tests the word at the index it gets, and goes on byte by byte): a zero
// byte of y is a position of the three, the words loaded from i, i+1 and
// i+2 each testing one letter (b|0x20 is a lower-case letter only for it
// and its upper case); the lowest bit of m marks the first exactly (the
// formula errs only above a zero byte). The first letter alone, an e in
// eight bytes of prose or code, stopped the search far more often.
func skipToFold3(s string, i int, a, b, c byte) int {
	const ones, fold = 0x0101010101010101, 0x2020202020202020
	for ; i+10 <= len(s); i += 8 {
		// (^ and | bind alike in Go: each letter's test in parentheses)
		y := ((load64(s, i) | fold) ^ (ones * uint64(a))) | ((load64(s, i+1) | fold) ^ (ones * uint64(b))) |
			((load64(s, i+2) | fold) ^ (ones * uint64(c)))
		if m := (y - ones) &^ y & (ones * 0x80); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	return i
}

// skipToAtOrNewline returns the first index from i on at which s holds
// "at" in any ASCII case or a newline, eight positions at a time while
// nine bytes are left, i itself when fewer are: as skipToFold3, a zero
// byte of ya is an "at" and one of yn a newline, and the lowest bit of
// either mask is exact, so the lowest of both is.
func skipToAtOrNewline(s string, i int) int {
	const ones, fold, high = 0x0101010101010101, 0x2020202020202020, 0x8080808080808080
	for ; i+9 <= len(s); i += 8 {
		x := load64(s, i)
		ya := ((x | fold) ^ (ones * 'a')) | ((load64(s, i+1) | fold) ^ (ones * 't'))
		yn := x ^ (ones * '\n')
		if m := ((ya - ones) &^ ya & high) | ((yn - ones) &^ yn & high); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	return i
}

// skipToDigit returns the first index from i on holding an ASCII digit,
// len(s) for none, eight bytes at a time: of a byte's low seven bits b,
// b+0x80-'0' has its high bit set when b >= '0' and b+0x80-'9'-1 when
// b > '9', neither carrying into the next byte; a byte whose own high
// bit is set is none.
func skipToDigit(s string, i int) int {
	const ones, high = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(s); i += 8 {
		x := load64(s, i)
		lo := x &^ high
		if m := (lo + ones*(0x80-'0')) &^ (lo + ones*(0x80-'9'-1)) &^ x & high; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(s) && !isDigit(s[i]); i++ {
	}
	return i
}

// matchSigTest is `(?i)(\d+)\s*(?:tests?\s*)?fail`: the count. Every
// step is forced (a shorter digit run or space run leaves a digit or a
// space where a letter must be; without "test", "s" or the spaces, what
// follows is no "fail"), so a digit run either matches or does not.
func matchSigTest(s string, from int) (count string, ok bool) {
	for i := skipToDigit(s, from); i < len(s); i = skipToDigit(s, i+1) {
		j := i + 1
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		p := skipReSpace(s, j)
		if n := foldWord(s, p, "test", packedTest); n > 0 {
			p += n
			p += foldLen(s, p, "s")
			p = skipReSpace(s, p)
		}
		if foldWord(s, p, "fail", packedFail) > 0 {
			return s[i:j], true
		}
		i = j
	}
	return "", false
}

// appendSigTestNames appends the first two matches of `(?i)fail.*?:\s*\S+`,
// comma-joined: from a "fail", the first ':' on its line followed (after
// any white space, newlines included) by a \S, through that \S run.
func appendSigTestNames(b []byte, s string) []byte {
	n := 0
	for i := 0; n < 2 && i+4 <= len(s); i++ {
		if i = skipToFold3(s, i, 'f', 'a', 'i'); i+4 > len(s) {
			break
		}
		if s[i]|0x20 != 'f' || foldWord(s, i, "fail", packedFail) == 0 {
			continue
		}
		end := -1
		for c := i + 4; c < len(s) && s[c] != '\n'; c++ {
			if s[c] == ':' {
				if u := skipReSpace(s, c+1); u < len(s) {
					end = endNonSpace(s, u)
					break
				}
			}
		}
		if end < 0 {
			continue
		}
		if n++; n == 2 {
			b = append(b, ',')
		}
		b = append(b, s[i:end]...)
		i = end - 1
	}
	return b
}

// verbSet is a list of verbs (lower-case ASCII words of two letters or
// more, with distinct first letters) and, for each byte, a bit for each
// letter a verb starting with that byte, in either ASCII case, has
// second: most bytes are ruled out by a test of the byte and the next,
// where testing each verb's first letter at every byte was most of
// matchSigFile's time.
type verbSet struct {
	verbs []string
	pair  [256]uint32
}

func newVerbSet(verbs ...string) *verbSet {
	vs := &verbSet{verbs: verbs}
	for _, v := range verbs {
		bit := uint32(1) << (v[1] - 'a')
		vs.pair[v[0]] |= bit
		vs.pair[v[0]-('a'-'A')] |= bit
	}
	return vs
}

// next returns the first index from i on at which a verb of vs may
// start, by the pair test alone, len(s) for none: matchSigFile and
// matchSigAction step from one such index to the next, where a call of
// verbAt at each byte cost them more than the test.
func (vs *verbSet) next(s string, i int) int {
	for ; i < len(s)-1; i++ {
		if vs.pair[s[i]]>>((s[i+1]|0x20-'a')&31)&1 != 0 {
			return i
		}
	}
	return len(s)
}

// verbAt returns the length of the first of vs's verbs at s[i:], 0 for
// none. A second byte that is no letter may map onto a letter's bit in
// the pair test: the verb is matched in full after it.
func verbAt(s string, i int, vs *verbSet) int {
	if i+1 >= len(s) || vs.pair[s[i]]>>((s[i+1]|0x20-'a')&31)&1 == 0 {
		return 0
	}
	c := s[i] | 0x20
	for _, v := range vs.verbs {
		if v[0] == c {
			return foldLen(s, i, v)
		}
	}
	return 0
}

var (
	fileVerbs   = newVerbSet("modified", "changed", "updated", "fixed")
	actionVerbs = newVerbSet("added", "removed", "fixed", "updated", "changed")
)

// matchSigFile is `(?i)(?:modified|changed|updated|fixed)\s+(\S+\.(?:ts|js|go|py))`:
// the file and the match's end. \s+ is forced; \S+ is tried longest first,
// so the file ends at the last ".ts", ".js", ".go" or ".py" of the \S run
// after the verb, with at least one byte before its dot.
func matchSigFile(s string) (file string, end int, ok bool) {
	for i := fileVerbs.next(s, 0); i < len(s); i = fileVerbs.next(s, i+1) {
		n := verbAt(s, i, fileVerbs)
		if n == 0 {
			continue
		}
		q := skipReSpace(s, i+n)
		if q == i+n {
			continue
		}
		e := endNonSpace(s, q)
		for k := e - 3; k > q; k-- {
			if s[k] != '.' {
				continue
			}
			if m := extAt(s, k+1); m > 0 {
				return s[q : k+1+m], k + 1 + m, true
			}
		}
	}
	return "", 0, false
}

func extAt(s string, i int) int {
	for _, x := range [...]string{"ts", "js", "go", "py"} {
		if n := foldLen(s, i, x); n > 0 {
			return n
		}
	}
	return 0
}

// matchSigAction is `(?i)(added|removed|fixed|updated|changed)\s+(\w+)`:
// the word after the verb; \s+ and \w+ are forced.
func matchSigAction(s string) (word string, ok bool) {
	for i := actionVerbs.next(s, 0); i < len(s); i = actionVerbs.next(s, i+1) {
		n := verbAt(s, i, actionVerbs)
		if n == 0 {
			continue
		}
		q := skipReSpace(s, i+n)
		if q == i+n {
			continue
		}
		if e := endWord(s, q); e > q {
			return s[q:e], true
		}
	}
	return "", false
}

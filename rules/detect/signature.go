package detect

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// fallbackLen is the number of code points the fallback signature keeps.
const fallbackLen = 50

// Signature is a step's signature for signature_repeat (RULES.md §8):
// norm(action) + "|" + OutputSignature(output).
func Signature(action, output string) string {
	var buf [128]byte
	return string(appendSignature(buf[:0], action, output))
}

// appendSignature appends Signature(action, output) to b.
func appendSignature(b []byte, action, output string) []byte {
	b = appendNorm(b, action)
	b = append(b, '|')
	return appendOutputSignature(b, output)
}

// appendOutputSignature appends OutputSignature(output) to b.
func appendOutputSignature(b []byte, output string) []byte {
	if b, ok := appendStructured(b, output); ok {
		return b
	}
	return appendFallback(b, output)
}

// appendNorm appends norm(s) to b: when s is ASCII, copied whole and
// lowered in place eight bytes at a time (appended byte by byte, an
// action cost as much as scanning an output several times its length; an
// OpenHands action, a command or a file's text, is often long).
func appendNorm(b []byte, s string) []byte {
	s = strings.TrimSpace(s)
	start := len(b)
	b = append(b, s...)
	w := b[start:]
	// The words are read and written through a pointer, as isASCII reads
	// them: a slice of w a word (w = w[8:]) spent half the loop on its
	// length, capacity and the mask that keeps it from passing the end.
	p := unsafe.Pointer(unsafe.SliceData(w))
	i := 0
	for ; i+8 <= len(w); i += 8 {
		x := *(*uint64)(unsafe.Add(p, i)) // within w: i+8 <= len(w)
		if x&ascii64 != 0 {
			return append(b[:start], strings.ToLower(s)...)
		}
		*(*uint64)(unsafe.Add(p, i)) = x | upper64(x)
	}
	for ; i < len(w); i++ {
		c := w[i]
		if c >= utf8.RuneSelf {
			return append(b[:start], strings.ToLower(s)...)
		}
		if c >= 'A' && c <= 'Z' {
			w[i] = c + ('a' - 'A')
		}
	}
	return b
}

// upper64 has 0x20, the bit that lowers an ASCII letter, in each byte of
// x, eight ASCII bytes, that is an upper-case letter, and 0 in the others.
// Added to a byte below 0x80, 0x80-'A' carries no further and sets the
// byte's high bit when it is 'A' or above, 0x80-'Z'-1 when above 'Z'.
func upper64(x uint64) uint64 {
	const ones = 0x0101010101010101
	ge := x + ones*(0x80-'A')
	gt := x + ones*(0x80-'Z'-1)
	return ((ge &^ gt) & ascii64) >> 2
}

// OutputSignature is seed 004's extractSignature as RULES.md §8 reads it,
// tried in order:
//   - an error: `error:<word>-<location>` ("Error: TypeError - Cannot read
//     property 'id' of null at auth.ts:45" → `error:TypeError-auth.ts:45`);
//   - a test failure: `test-fail:<count>-<names>`, count the first number
//     before "fail", names the first two whole matches of `fail.*?:\s*\S+`
//     joined by commas, so that 3, 2 and 1 failures differ;
//   - a file modification: `file:<file>-<word>`, the word the one after an
//     action verb found after the file ("Fixed auth.ts - updated
//     validation" → `file:auth.ts-validation`), else "modified";
//   - else the first 50 code points, lower case, each run of white space
//     (unicode.IsSpace) turned into one "-".
func OutputSignature(output string) string {
	if sig, ok := structuredSignature(output); ok {
		return sig
	}
	return fallbackSignature(output)
}

// structuredSignature is OutputSignature's first three cases; false when
// none applies.
func structuredSignature(output string) (string, bool) {
	var buf [128]byte
	if b, ok := appendStructured(buf[:0], output); ok {
		return string(b), true
	}
	return "", false
}

// appendStructured appends structuredSignature(output) to b; b unchanged
// and false when none applies.
func appendStructured(b []byte, output string) ([]byte, bool) {
	// Each pattern needs a word, which one pass over the output looks
	// for, so that most outputs are ruled out by it alone; an error
	// found ends the pass.
	words, word, loc := scanSignature(output, true)
	if word != "" {
		b = append(b, "error:"...)
		b = append(b, word...)
		b = append(b, '-')
		return append(b, loc...), true
	}
	if words&wordFail != 0 {
		if count, ok := matchSigTest(output, 0); ok {
			b = append(b, "test-fail:"...)
			b = append(b, count...)
			b = append(b, '-')
			return appendSigTestNames(b, output), true
		}
	}
	if words&wordFileVerb != 0 {
		if file, end, ok := matchSigFile(output); ok {
			// The seed searches the whole output, which finds the verb
			// that introduced the file ("Fixed") and makes every fix of a
			// file the same; its own examples need the word after the
			// file's action.
			action, ok := matchSigAction(output[end:])
			if !ok {
				action = "modified"
			}
			b = append(b, "file:"...)
			b = append(b, file...)
			b = append(b, '-')
			return append(b, action...), true
		}
	}
	return b, false
}

// appendFallback appends fallbackSignature(output) to b, eight bytes at
// a time or byte by byte while the first fallbackLen code points are
// ASCII (where lower case and unicode.IsSpace are a byte's), by code
// point otherwise. Each byte is written as fallbackByte has it, the
// position moving on but for a space after a space: no branch a byte but
// the test for ASCII, where there were three and an append (a test of
// its capacity). Eight bytes with no space after a space are written at
// once, as fallback64 has them (the walk a byte was most of the cost of
// the signature of an output with no pattern's word).
func appendFallback(b []byte, output string) []byte {
	start := len(b)
	in := output[:min(len(output), fallbackLen)]
	b = slices.Grow(b, len(in))
	out := b[start : start+len(in)]
	w, inSpace := 0, 0
	for i := 0; i < len(in); {
		end := len(in)
		if i+8 <= len(in) {
			x := load64(in, i)
			if x&ascii64 == 0 {
				// w <= i: the eight bytes fit in out.
				sp := spaces64(x)
				binary.LittleEndian.PutUint64(out[w:], fallback64(x, sp))
				if after := sp & (sp<<8 | uint64(inSpace)<<7); after != 0 {
					// Kept up to the first white space after white
					// space, which is passed: it writes nothing (a
					// pretty-printed or code output has many, where
					// the eight bytes went one at a time).
					j := bits.TrailingZeros64(after) / 8
					i, w, inSpace = i+j+1, w+j, 1
					continue
				}
				i, w, inSpace = i+8, w+8, int(sp>>63)
				continue
			}
			end = i + 8 // a byte that is not ASCII
		}
		for ; i < end; i++ {
			v := int(fallbackByte[in[i]])
			if v >= fallbackNotASCII {
				return appendFallbackRunes(b[:start], output)
			}
			space := v >> 8
			out[w] = byte(v)
			w += 1 - space&inSpace
			inSpace = space
		}
	}
	return b[:start+w]
}

// spaces64 has the high bit of each byte of x, eight ASCII bytes, that
// is white space (' ' and '\t' to '\r'). Per byte, below 0x80: b+0x7f
// has its high bit set unless b is 0 (b the byte of x^' '),
// x+0x80-'\t' when x >= '\t' and x+0x80-'\r'-1 when x > '\r', none
// carrying into the next byte.
func spaces64(x uint64) uint64 {
	const ones, low7 = 0x0101010101010101, 0x7f7f7f7f7f7f7f7f
	b := x ^ (ones * ' ')
	return ^((b+low7)|b)&ascii64 | (x+ones*(0x80-'\t'))&^(x+ones*(0x80-'\r'-1))&ascii64
}

// fallback64 is what appendFallback writes for x, eight ASCII bytes of
// which sp (spaces64) marks the white space, when none is white space
// after white space: each byte lowered, and '-' for white space (whose
// bytes are no letters). The callers test x and sp, where a function
// that did was not inlined: sp&(sp<<8|inSpace<<7) is 0 when no byte is
// white space after white space, inSpace (1 or 0) saying the byte before
// x is.
func fallback64(x, sp uint64) uint64 {
	const ones = 0x0101010101010101
	m := (sp >> 7) * 0xff
	return (x|upper64(x))&^m | m&(ones*'-')
}

// fallbackDiffers says fallbackSignature(output) is not f, walking the
// output as appendFallback does up to the first byte of its signature
// that differs from f's, eight at a time as fallback64 has them or one
// at a time; false when they are the same, or when it meets a byte that
// is not ASCII first (the code points from there are lowered by unicode,
// where the signature's bytes before them are the ASCII bytes' own).
func fallbackDiffers(f []byte, output string) bool {
	in := output[:min(len(output), fallbackLen)]
	w, inSpace := 0, 0
	for i := 0; i < len(in); {
		end := len(in)
		if i+8 <= len(in) {
			x := load64(in, i)
			if sp := spaces64(x); x&ascii64 == 0 {
				after := sp & (sp<<8 | uint64(inSpace)<<7)
				if after == 0 {
					// The eight bytes are the signature's from w on.
					if w+8 > len(f) || fallback64(x, sp) != binary.LittleEndian.Uint64(f[w:]) {
						return true
					}
					i, w, inSpace = i+8, w+8, int(sp>>63)
					continue
				}
				if w+8 <= len(f) {
					// The bytes up to the first white space after
					// white space are the signature's from w on, and
					// that one is passed (appendFallback).
					j := bits.TrailingZeros64(after) / 8
					if (fallback64(x, sp)^binary.LittleEndian.Uint64(f[w:]))&(1<<(8*j)-1) != 0 {
						return true
					}
					i, w, inSpace = i+j+1, w+j, 1
					continue
				}
			}
			end = i + 8
		}
		for ; i < end; i++ {
			v := int(fallbackByte[in[i]])
			if v >= fallbackNotASCII {
				return false
			}
			space := v >> 8
			if space&inSpace == 0 {
				if w == len(f) || f[w] != byte(v) {
					return true
				}
				w++
			}
			inSpace = space
		}
	}
	return w != len(f)
}

// appendFallbackRunes appends fallbackSignature(output) to b a code point
// at a time, without its string and builder: signature_repeat makes an
// output's signature again when the step before has another output (a
// loop of several steps), and a step allocated when that output was not
// ASCII. strings.ToLower lowers each code point alone, with an invalid
// byte as utf8.RuneError, as unicode.ToLower does here.
func appendFallbackRunes(b []byte, output string) []byte {
	inSpace := false
	for i, n := 0, 0; i < len(output) && n < fallbackLen; n++ {
		r, size := utf8.DecodeRuneInString(output[i:])
		i += size
		if r = unicode.ToLower(r); unicode.IsSpace(r) {
			if !inSpace {
				b = append(b, '-')
			}
			inSpace = true
			continue
		}
		inSpace = false
		b = utf8.AppendRune(b, r)
	}
	return b
}

// fallbackByte[c] is what appendFallback writes for an ASCII byte c: c in
// lower case, or '-' with bit 8 set for white space; fallbackNotASCII for
// a byte that is not ASCII.
var fallbackByte = func() (t [256]uint16) {
	for c := range 256 {
		switch {
		case c >= utf8.RuneSelf:
			t[c] = fallbackNotASCII
		case c == ' ' || c >= '\t' && c <= '\r':
			t[c] = 1<<8 | '-'
		case c >= 'A' && c <= 'Z':
			t[c] = uint16(c + 'a' - 'A')
		default:
			t[c] = uint16(c)
		}
	}
	return t
}()

const fallbackNotASCII = 1 << 9

// The words the patterns need, as signatureWords reports them.
const (
	wordError    = 1 << iota // sigErrorRe's "error"
	wordFail                 // sigTestRe's "fail"
	wordFileVerb             // one of the verbs sigFileRe starts with
	allWords     = wordError | wordFail | wordFileVerb
)

var sigWords = [...]sigWord{
	{word: "error", bit: wordError}, {word: "fail", bit: wordFail},
	{word: "modified", bit: wordFileVerb}, {word: "changed", bit: wordFileVerb}, {word: "updated", bit: wordFileVerb}, {word: "fixed", bit: wordFileVerb},
}

type sigWord struct {
	word string // lower-case ASCII letters, eight at most
	bit  uint8
	// packed is word's bytes in a word (little-endian), mask the bytes
	// it fills (hasWordAt), set at init.
	packed, mask uint64
}

func init() {
	for i := range sigWords {
		w := &sigWords[i]
		for k := range len(w.word) {
			w.packed |= uint64(w.word[k]) << (8 * k)
			w.mask |= 0xff << (8 * k)
		}
	}
}

// sigFirst[b] has bit i set when sigWords[i] starts with byte b, in
// either ASCII case.
var sigFirst = func() (t [256]uint8) {
	for i, w := range sigWords {
		t[w.word[0]] |= 1 << i
		t[w.word[0]-('a'-'A')] |= 1 << i
	}
	return t
}()

// sigPairs holds, as a bitset indexed by two bytes (the first the low
// byte), the byte pairs in either ASCII case that open a word of
// sigWords (its first two letters) or follow its first letter (its
// second and third). Every word is four letters or longer, so one that
// starts at an even index opens with a pair at an even index and one that
// starts at an odd index has its second and third letters there: the
// pairs at even indexes alone find every word, read two bytes a step
// where every byte was a step (its tests, a third of the pass's cost over
// prose and code, were most of a signature's).
var sigPairs = func() (t [1 << 16 / 64]uint64) {
	fold := func(c byte) [2]byte { return [2]byte{c, c - ('a' - 'A')} }
	for _, w := range sigWords {
		for j := range 2 {
			for _, a := range fold(w.word[j]) {
				for _, b := range fold(w.word[j+1]) {
					x := uint16(a) | uint16(b)<<8
					t[x/64] |= 1 << (x % 64)
				}
			}
		}
	}
	return t
}()

// signatureWords reports which of the patterns' words s contains, in any
// ASCII case, in one pass over s (a step's output is searched for all
// of them).
func signatureWords(s string) uint8 {
	found, _, _ := scanSignature(s, false)
	return found
}

// scanSignature is signatureWords' pass. With matchError, it tries
// sigErrorRe at the first "error" (matchSigError goes on to the later
// ones): the error case comes first, so when it matches the pass ends
// there and returns the word and location; when it does not, no later
// "error" matches either. The words are looked for at each index in
// turn, as at each byte: at a pair of sigPairs at an even index i, at
// i-1 and then at i (nothing else can start at either).
func scanSignature(s string, matchError bool) (found uint8, word, loc string) {
	p := unsafe.Pointer(unsafe.StringData(s))
	for i := 0; ; i += 2 {
		// The next pair of sigPairs at an even index: two pairs a step,
		// read in one load, the loop's test and step paid once for four
		// bytes (a loop over each pair in turn took six instructions a
		// byte); then the last pair, if one is left. In line: a call a
		// pair found cost more than it saved on the Codex log.
		for ; i+4 <= len(s); i += 4 {
			// Within s (i+4 <= len(s)); the bytes' shifts are one load.
			w := (*[4]byte)(unsafe.Add(p, i))
			x := uint32(w[0]) | uint32(w[1])<<8 | uint32(w[2])<<16 | uint32(w[3])<<24
			if lo := x & 0xffff; sigPairs[lo/64]>>(lo%64)&1 != 0 {
				goto found
			}
			if hi := x >> 16; sigPairs[hi/64]>>(hi%64)&1 != 0 {
				i += 2
				goto found
			}
		}
		if i+2 > len(s) {
			break
		}
		// i+2 <= len(s) proves both s[i] and s[i+1] in bounds.
		if x := uint16(s[i]) | uint16(s[i+1])<<8; sigPairs[x/64]>>(x%64)&1 == 0 {
			break // no pair past this one
		}
	found:
		for at := max(i-1, 0); at <= i; at++ {
			for cands := sigFirst[s[at]]; cands != 0; cands &= cands - 1 {
				w := &sigWords[bits.TrailingZeros8(cands)]
				if found&w.bit != 0 || !hasWordAt(s, at, w) {
					continue
				}
				if w.bit == wordError && matchError {
					if word, loc, ok := matchSigError(s, at); ok {
						return found | w.bit, word, loc
					}
				}
				if found |= w.bit; found == allWords {
					return found, "", ""
				}
			}
		}
	}
	return found, "", ""
}

// hasFoldAt reports whether s[i:] starts with word (lower-case ASCII
// letters) in any ASCII case: b|0x20 equals a lower-case letter only for
// that letter and its upper case.
func hasFoldAt(s string, i int, word string) bool {
	if len(s)-i < len(word) {
		return false
	}
	for j := 1; j < len(word); j++ {
		if s[i+j]|0x20 != word[j] {
			return false
		}
	}
	return true
}

// hasWordAt is hasFoldAt(s, i, w.word): with eight bytes of s at i, one
// compare of them folded to lower case with the word packed (the folding
// is hasFoldAt's, a byte at a time), where the loop took some six
// instructions a letter. TestHasWordAtAsFoldAt holds it to hasFoldAt.
func hasWordAt(s string, i int, w *sigWord) bool {
	if uint(i)+8 <= uint(len(s)) {
		// The eight bytes at i, within s (load64's bytes, loaded whole:
		// its eight loads put hasWordAt over the inlining budget).
		x := *(*uint64)(unsafe.Add(unsafe.Pointer(unsafe.StringData(s)), i))
		return (x|0x2020202020202020^w.packed)&w.mask == 0
	}
	return hasFoldAt(s, i, w.word)
}

func fallbackSignature(output string) string {
	// Cut after 50 code points (an invalid byte counts as one).
	cut, n := 0, 0
	for cut < len(output) && n < fallbackLen {
		_, size := utf8.DecodeRuneInString(output[cut:])
		cut += size
		n++
	}
	lower := strings.ToLower(output[:cut])
	var b strings.Builder
	b.Grow(len(lower))
	inSpace := false
	for _, r := range lower {
		if unicode.IsSpace(r) {
			if !inSpace {
				b.WriteByte('-')
			}
			inSpace = true
			continue
		}
		inSpace = false
		b.WriteRune(r)
	}
	return b.String()
}

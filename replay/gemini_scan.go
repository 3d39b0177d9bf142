package replay

// The Gemini CLI readers' walk of the objects and arrays the validating
// pass did not note (below its memberDepth levels: a tool call's result
// parts, their functionResponse and response), as valueIndex's members
// and elems walk them, but for white space: a session document is
// pretty-printed (JSON.stringify(…, null, 2)), each member and element
// on a line of its own indented by two spaces a level, ten to twenty
// spaces there, which skipSpace passes one byte at a time.

import (
	"math/bits"
)

// skipBlank is skipSpace, a run of spaces passed eight bytes at a time.
// Compact JSON meets no space: its first byte tells, inline, as in
// skipSpace.
func skipBlank(b []byte, i int) int {
	if i < len(b) && b[i] > ' ' {
		return i
	}
	return skipBlankRun(b, i)
}

// skipBlankRun is skipBlank past its first byte's test: the one space
// after a colon is told by the next byte, a newline's indentation read
// a word at a time from the byte after the newline. The words are read
// by index (word), each load's bounds told by the loop's test, where
// they were read from r, what was left of b, resliced at each step; the
// last few bytes (a container's closing bracket is the last byte of a
// value) from b's last word, shifted, where they went a byte at a time.
//
// A newline and up to 24 spaces, then a byte not blank, as
// JSON.stringify(…, null, 2) writes before a member or an element (a
// tool call's response's members, eight levels down, have 18), is read
// first, by up to three words and no loop, when it ends 26 bytes or more
// before b's end (the words read lie within b): the entry tests, the
// loop and its last byte's three tests took ~48 instructions a call.
func skipBlankRun(b []byte, i int) int {
	const spaces = 0x2020202020202020
	if i >= 0 && i <= len(b)-26 && b[i] == '\n' {
		j := i + 1
		y := word(b, j) ^ spaces
		if y == 0 {
			j += 8
			if y = word(b, j) ^ spaces; y == 0 {
				j += 8
				y = word(b, j) ^ spaces
			}
		}
		// The first byte not a space (24 spaces: j+8, i+25), read
		// with no bounds test: it lies within b.
		j += int(uint(bits.TrailingZeros64(y)) >> 3)
		if byteAt(b, j) > ' ' {
			return j
		}
	}
	if i < 0 || i >= len(b) {
		return i
	}
	if i+1 < len(b) {
		if b[i+1] > ' ' && b[i] == ' ' {
			return i + 1
		}
		if b[i] == '\n' {
			i++
		}
	}
	for i+8 <= len(b) {
		y := word(b, i) ^ spaces
		if y == 0 {
			i += 8
			continue
		}
		i += bits.TrailingZeros64(y) / 8 // the first byte not a space
		if c := b[i]; c > ' ' || c != '\n' && c != '\r' && c != '\t' {
			return i
		}
		i++
	}
	if m := len(b) - i; m > 0 && len(b) >= 8 {
		// The last m bytes, low first; the bytes shifted in, 0, are
		// not spaces: a run to b's end stops at m.
		y := word(b, len(b)-8)>>(64-8*m) ^ spaces
		k := bits.TrailingZeros64(y) / 8
		if k >= m {
			return len(b)
		}
		i += k
		if c := b[i]; c > ' ' || c != '\n' && c != '\r' && c != '\t' {
			return i
		}
		i++
	}
	return skipSpace(b, i)
}

// skipAfter is skipBlank after a member's or an element's value in v.
// JSON.stringify writes a comma just after a value but the last, told
// inline as skipBlank; white space after it is the last value's, before
// the container's closer (blankAfter).
func skipAfter(v rawValue, i int) int {
	if i < len(v) && v[i] > ' ' {
		return i
	}
	return blankAfter(v, i)
}

// blankAfter is skipAfter past its first byte's test. The white space
// after a container's last value is a newline and the container's own
// indentation, up to 16 spaces (a tool call's response, seven levels
// down, has 14), its closer the last byte of v: told by v's two words
// before that closer, where skipBlankRun's entry tests, its loop and its
// tail took ~57 instructions. Every byte from i to v's last is then
// white space, and v's last byte (a validated container's closer,
// tested all the same) is not: skipBlankRun would return its index too.
func blankAfter(v rawValue, i int) int {
	const spaces = 0x2020202020202020
	if n := len(v) - 2 - i; i >= 0 && n >= 0 && v[i] == '\n' && v[len(v)-1] > ' ' { // n: the spaces
		// The words' bytes are v[len(v)-9:len(v)-1] (hi) and the 8
		// before (lo), the spaces their top n bytes (a shift of a
		// word by 64 or more is 0: none).
		if n <= 8 && len(v) >= 9 {
			if (word(v, len(v)-9)^spaces)>>(64-8*n) == 0 {
				return len(v) - 1
			}
		} else if n <= 16 && len(v) >= 17 {
			if word(v, len(v)-9) == spaces && (word(v, len(v)-17)^spaces)>>(128-8*n) == 0 {
				return len(v) - 1
			}
		}
	}
	return skipBlankRun(v, i)
}

// scanFields is jsFields for an object not noted: valueIndex.members'
// scan, the members handed to keys.set (looked up by keys.find when
// neither they nor the names need more), white space passed by
// skipBlank.
func scanFields(ix *valueIndex, v rawValue, keys *jsKeys, vals []rawValue) {
	if v.Kind() != '{' {
		return
	}
	i := skipBlank(v, 1)
	for i < len(v) && v[i] == '"' {
		var (
			key  []byte
			kEnd int
			esc  bool
		)
		// A key that ends within its first 16 bytes with no escape is
		// told by its words' stops (stopMask: a valid string's first
		// stop is its closing quote), as topMembers tells one, with no
		// call to scanKey (~86 instructions a key) and no UTF-8 check:
		// a key not ASCII, valid UTF-8 or not, is no ASCII name (find),
		// and set checks it when a name is not ASCII.
		if q := i + 1; q+16 <= len(v) {
			m := stopMask(word(v, q))
			if m == 0 {
				q += 8
				m = stopMask(word(v, q))
			}
			if q += bits.TrailingZeros64(m) / 8; m != 0 && v[q] == '"' {
				key, kEnd = v[i+1:q], q+1
			}
		}
		if kEnd == 0 {
			key, kEnd, esc = scanKey(v, i) // as members
		}
		i = skipBlank(v, kEnd)
		if i+2 < len(v) && v[i+1] == ' ' && v[i+2] > ' ' {
			i += 2 // past ": ", as JSON.stringify writes it indented
		} else {
			i = skipBlank(v, i+1) // past ':'
		}
		vEnd := ix.skip(v, i)
		if !esc && keys.allASCII {
			if k := keys.find(key); k >= 0 {
				vals[k] = v[i:vEnd]
			}
		} else {
			keys.set(key, esc, v[i:vEnd], vals)
		}
		i = skipAfter(v, vEnd)
		if i < len(v) && v[i] == ',' {
			i = skipBlank(v, i+1)
		}
	}
}

// jsElems is valueIndex.elems, white space passed by skipBlank.
func jsElems(ix *valueIndex, v rawValue, fn func(i int, val rawValue) bool) {
	if v.Kind() != '[' {
		return
	}
	i := skipBlank(v, 1)
	for n := 0; i < len(v) && v[i] != ']'; n++ {
		end := ix.skip(v, i)
		if !fn(n, v[i:end]) {
			return
		}
		i = skipAfter(v, end)
		if i < len(v) && v[i] == ',' {
			i = skipBlank(v, i+1)
		}
	}
}

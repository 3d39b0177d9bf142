package replay

// White space in the pass (rawindex_pass.go): a pretty-printed document
// (Gemini CLI's session, 38% of its bytes blank) puts a newline and an
// indentation run after nearly every comma and before every closing
// bracket, which skipSpace walks a byte at a time (some eight
// instructions a byte, 15% of a Gemini CLI document's instructions).
// Compact JSON never gets here: the pass tests a byte for <= ' ' first.

import "math/bits"

// blankCarry is skipSpace(b, i) for an i < len(b) at a blank: a newline
// passed first, then the spaces after it eight bytes a word (the first
// byte that is not a space is the lowest nonzero byte of the word XOR
// eight spaces), the rest (tabs, carriage returns, another newline, a
// run that nears b's end) by skipSpace. Words are read only while eight
// bytes are left in b. It is out of line, carrying the pass's level as
// rawindex_carry.go's calls do: inlined, its loop held registers the
// compact logs' member steps need (Claude Code +0.1%).
//
//go:noinline
func blankCarry(b []byte, i int, lv passLevel) (int, passLevel) {
	if byteAt(b, i) == '\n' {
		i++
	}
	for i+8 <= len(b) {
		if y := word(b, i) ^ spaces; y != 0 {
			if i += bits.TrailingZeros64(y) / 8; byteAt(b, i) > ' ' {
				return i, lv
			}
			break
		}
		i += 8
	}
	return skipSpace(b, i), lv
}

// blankLines is blankCarry for passLines, counting the newlines it
// passes into ix.lines.
//
//go:noinline
func (ix *valueIndex) blankLines(b []byte, i int, lv passLevel) (int, passLevel) {
	if byteAt(b, i) == '\n' {
		i++
		ix.lines++
	}
	for i+8 <= len(b) {
		if y := word(b, i) ^ spaces; y != 0 {
			if i += bits.TrailingZeros64(y) / 8; byteAt(b, i) > ' ' {
				return i, lv
			}
			break
		}
		i += 8
	}
	return ix.spaceLines(b, i), lv
}

// spaceLines is skipSpace, counting the newlines it passes into
// ix.lines: passLines' white space other than blankLines' words.
func (ix *valueIndex) spaceLines(b []byte, i int) int {
	for i < len(b) && b[i] <= ' ' {
		switch b[i] {
		case '\n':
			ix.lines++
		case ' ', '\t', '\r':
		default:
			return i
		}
		i++
	}
	return i
}

// spaces is eight spaces' word: a word of white space XOR spaces is zero
// up to its first byte that is not a space.
const spaces = 0x2020202020202020

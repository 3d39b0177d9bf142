package replay

// The stop scans: the first byte of a small class in a run of bytes.
// special finds what a JSON string's validation stops at ('"', '\\', a
// byte below 0x20); stringRun the same, passing the two-byte escapes
// (validString's runs between them are short); verbatimIndexSWAR what
// goVerbatim looks at (<, >, &, '\\', a byte over 0x7f; verbatimRun, in
// verbatimrun*.go, passes encoding/json's escapes too); unescapeRun
// copies a string's body up to a backslash other than a two-byte escape
// (or a byte over 0x7f), writing those escapes on the way, for the
// strings a reader keeps; copyStringRun the same for a string not yet
// validated, stopping where special does too (AVX2 only); stringClose
// (AVX2 only) validates a string to its closing quote in one call, the
// \u escapes passed too. Every string of every record goes through the
// first three or stringClose. On amd64 they run 16 bytes a step in
// assembly (stopscan_amd64.s, SSE2; the copies in stopscan_copy_amd64.s),
// stringRun 32 where the CPU has AVX2:
// Go has no SIMD in the language or the standard library (simd/archsimd
// only behind GOEXPERIMENT=simd) and its compiler does not vectorise
// loops. Elsewhere, or with the purego build tag, they are the SWAR scans
// below (stopscan_other.go), eight bytes a word, which are also the
// reference the assembly is tested against on amd64 (stopscan_test.go);
// unescapeRun's is a byte loop (unescapeRunBytes).
// An assembly function is never inlined, and a string stops every 11 to
// 17 bytes: the callers test a run's first word themselves (stopMask,
// verbatimStop) and call the scan only for the runs that go on.

import (
	"encoding/binary"
	"math/bits"
)

// specialSWAR is special eight bytes a word. A word holds a stop when,
// after XOR with the byte sought (a zero byte where it was), some byte
// borrows on subtracting 1 (0x20 for the control bytes) with its own
// high bit clear. The three tests share that last mask: '"' and '\\' are
// ASCII, so the XORs leave each byte's high bit as it was in x, and one
// AND NOT with x stands for three. A borrow only carries upwards, from a
// byte that holds one, so the lowest flagged byte of the word is the
// first that does. Two words are tested a turn, one branch for both:
// most strings run for dozens of bytes between their escapes.
func specialSWAR(b []byte, j int) int {
	for j+16 <= len(b) {
		x, y := binary.LittleEndian.Uint64(b[j:]), binary.LittleEndian.Uint64(b[j+8:])
		mx, my := stopMask(x), stopMask(y)
		if mx|my != 0 {
			if mx != 0 {
				return j + bits.TrailingZeros64(mx)/8
			}
			return j + 8 + bits.TrailingZeros64(my)/8
		}
		j += 16
	}
	if j+8 <= len(b) {
		if m := stopMask(binary.LittleEndian.Uint64(b[j:])); m != 0 {
			return j + bits.TrailingZeros64(m)/8
		}
		j += 8
	}
	for j < len(b) && b[j] >= 0x20 && b[j] != '"' && b[j] != '\\' {
		j++
	}
	return j
}

// stopMask flags (high bit) the bytes of x that special stops at, exactly
// from the lowest one up (above it, any byte may be flagged). The quote
// and the control bytes are one test: XOR with 0x02 moves '"' to 0x20
// and the bytes below 0x20 among themselves, so that exactly they are
// below 0x21 after it (seven operations, where three tests took nine;
// the pass runs it at every key and short string). The XORs leave each
// byte's high bit as it was in x, so the AND NOT with x clears the bytes
// over 0x7f whose subtraction did not borrow but left a high bit.
func stopMask(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	return (((x ^ ones*0x02) - ones*0x21) | ((x ^ ones*'\\') - ones)) &^ x & highs
}

// stopAdds are looseStopMask's subtractions as additions, and its mask of
// the high bits: variables, set here and never written. Go's compiler
// keeps no 64-bit constant in a register from one use to the next in the
// pass (it wrote each of stopMask's again, a MOVQ, at each word read:
// four a word), but it folds a variable's load into the operation that
// uses it (ADDQ stopAdds+8(SB), R), or loads it once for a run of words.
var stopAdds = struct{ loose, backslash, highs uint64 }{
	loose:     1<<64 - 0x2323232323232323, // x - 0x23 a byte
	backslash: 1<<64 - 0x0101010101010101, // (x^'\\') - 1 a byte
	highs:     0x8080808080808080,
}

// looseStopMask flags (high bit) the lowest byte of x that is a stop
// (stopMask's: a quote, a backslash, a control byte), a space, a '!' or
// a byte over 0x7f (and any bytes above it): the first two are below
// 0x23 with the quote and the control bytes, one subtraction with no
// XOR, and the last are not cleared by an AND NOT with x (a byte over
// 0x7f is flagged by one subtraction or the other). A borrow carries
// only up from a byte flagged itself, so that no byte below the lowest
// flagged one is any of them. The pass reads its keys and short strings
// by it, testing the lowest flagged byte for the closing quote: a string
// with a space, a '!' or a byte over 0x7f in its first words is read
// by the call that reads a longer one (longString, keyCarry), which
// measured cheaper than stopMask's three more operations at every word.
func looseStopMask(x uint64) uint64 {
	const ones = 0x0101010101010101
	return ((x + stopAdds.loose) | ((x ^ ones*'\\') + stopAdds.backslash)) & stopAdds.highs
}

// verbatimIndexSWAR is verbatimIndex eight bytes a word (verbatimStop).
func verbatimIndexSWAR(b []byte, j int) int {
	for ; j+8 <= len(b); j += 8 {
		if m := verbatimStop(binary.LittleEndian.Uint64(b[j:])); m != 0 {
			return j + bits.TrailingZeros64(m)/8
		}
	}
	for j < len(b) && b[j] < 0x80 && b[j] != '<' && b[j] != '>' && b[j] != '&' && b[j] != '\\' {
		j++
	}
	return j
}

// verbatimStop flags (high bit) the bytes of x that goVerbatim looks at
// one by one: <, >, &, a backslash, a byte over 0x7f, exactly from the
// lowest one up. A byte equal to one sought is zero after the XOR and
// borrows on subtracting 1; x's own high bits (which the XORs with ASCII
// leave as they were) both flag the bytes over 0x7f and stand for the
// AND NOT of each test, which a borrow from a byte over 0x80 would
// otherwise fool.
func verbatimStop(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	lt, gt, amp, bs := x^(ones*'<'), x^(ones*'>'), x^(ones*'&'), x^(ones*'\\')
	return ((lt - ones) | (gt - ones) | (amp - ones) | (bs - ones) | x) & highs
}

// stringRunSWAR is stringRun with specialSWAR.
func stringRunSWAR(b []byte, j int) (stop int, esc bool) {
	for {
		j = specialSWAR(b, j)
		if j+1 >= len(b) || b[j] != '\\' || simpleEscape[b[j+1]] == 0 {
			return j, esc
		}
		esc = true
		j += 2
	}
}

// unescapeRunBytes is unescapeRun a byte at a time: the assembly's
// reference (stopscan_test.go), and unescapeRun where there is none.
func unescapeRunBytes(dst, src []byte, stopHigh bool) (w, r int) {
	n := min(len(src), len(dst))
	for r < n {
		c := src[r]
		if c == '\\' {
			if r+1 >= n || simpleEscape[src[r+1]] == 0 {
				break
			}
			dst[w] = simpleEscape[src[r+1]]
			w, r = w+1, r+2
			continue
		}
		if c >= 0x80 && stopHigh {
			break
		}
		dst[w] = c
		w, r = w+1, r+1
	}
	return w, r
}

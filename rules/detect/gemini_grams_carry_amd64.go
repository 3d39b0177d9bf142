//go:build amd64 && !purego

package detect

// useCarryAsm says countGramBytesCarry runs its assembly loops; false
// only in tests of the Go loop.
var useCarryAsm = true

// countGramBytes3CarryAsm is countGramBytesCarry at gramStride in scalar assembly
// (gemini_grams_carry_amd64.s): eight grams a step, each two loads, two
// multiplies, a shift, ADDB to its entry and JCS. len(b) >= gramUnits.
//
//go:noescape
func countGramBytes3CarryAsm(counts *[countSlots]uint8, b []byte, d uint8) bool

// countGramBytes1CarryAsm is countGramBytes3CarryAsm at stride 1 (the
// dense count): eight grams a step. len(b) >= gramUnits.
//
//go:noescape
func countGramBytes1CarryAsm(counts *[countSlots]uint8, b []byte, d uint8) bool

// countGrams3CarryAsm is countGramsCarry at gramStride in scalar
// assembly (gemini_grams_carry_amd64.s): eight grams a step, each four
// loads, four multiplies, a shift, ADDB to its entry and JCS.
// len(b) >= gramUnits.
//
//go:noescape
func countGrams3CarryAsm(counts *[countSlots]uint8, b []uint16, d uint8) bool

// countGrams1CarryAsm is countGrams3CarryAsm at stride 1 (the dense
// count). len(b) >= gramUnits.
//
//go:noescape
func countGrams1CarryAsm(counts *[countSlots]uint8, b []uint16, d uint8) bool

// clearCounts zeroes the counts for a carry count: by vector with AVX2
// (clearCountsAVX2, some 700 instructions), else clear, whose REP STOSQ
// counts as 2,048.
func clearCounts(counts *[countSlots]uint8) {
	if useAVX2 {
		clearCountsAVX2(counts)
		return
	}
	clear(counts[:])
}

//go:noescape
func clearCountsAVX2(counts *[countSlots]uint8)

// gemini_grams_carry_amd64.s writes countBits out: its hash keeps the
// top 14 bits (SHRQ $50) and clearCountsAVX2 clears 16384 bytes. This
// constant does not compile unless countBits is 14, so a change of the
// table's size fails here rather than in the assembly's reads.
const _ = uint(countBits-14) + uint(14-countBits)

//go:build !amd64 || purego

package detect

// useCarryAsm is read by no loop here: countGramBytesCarry runs
// countGramBytesCarryGo.
var useCarryAsm = false

func countGramBytes3CarryAsm(counts *[countSlots]uint8, b []byte, d uint8) bool {
	return countGramBytesCarryGo(counts, b, gramStride, d)
}

func countGramBytes1CarryAsm(counts *[countSlots]uint8, b []byte, d uint8) bool {
	return countGramBytesCarryGo(counts, b, 1, d)
}

func countGrams3CarryAsm(counts *[countSlots]uint8, b []uint16, d uint8) bool {
	return countGramsCarryGo(counts, b, gramStride, d)
}

func countGrams1CarryAsm(counts *[countSlots]uint8, b []uint16, d uint8) bool {
	return countGramsCarryGo(counts, b, 1, d)
}

// clearCounts zeroes the counts for a carry count.
func clearCounts(counts *[countSlots]uint8) { clear(counts[:]) }

//go:build !amd64 || purego

package detect

// useCarryAsm is read by no loop here: countGramBytes3Carry runs
// countGramBytes3CarryGo.
var useCarryAsm = false

func countGramBytes3CarryAsm(counts *[countSlots]uint8, b []byte, d uint8) bool {
	return countGramBytes3CarryGo(counts, b, d)
}

// clearCounts zeroes the counts for a carry count.
func clearCounts(counts *[countSlots]uint8) { clear(counts[:]) }

package detect

import "unsafe"

// A carry count is noLoopPossible's count of a long ASCII history
// (addPending's bytes, sparse at gramStride or dense) on a cleared
// table, a count of n stored as n·d with d = carryStep(lim): the count
// that reaches lim carries out of its byte, so a gram's count is one add
// to memory and a branch on the carry (on amd64, countGramBytes3CarryAsm
// and countGramBytes1CarryAsm: 7 instructions a gram), where the floor's
// count (countGramBytes3, countGramBytes1) loaded the entry, raised it
// to the floor, added one, stored it and compared it with the top (12).
// The table is cleared for it (some 1,000 instructions, the floor's
// reason), so a count takes it only from carryFrom grams on.

// carryStep is the step d of a carry count bounded by lim, 0 for none:
// d·(lim−1) < 256 ≤ d·lim, so that the lim-th count of a gram, and no
// earlier one, carries out of its byte. Every lim from 2 to 16 has one
// (d = ⌈256/lim⌉); at 1 every gram fails, past 16 no d fits.
func carryStep(lim uint8) uint8 {
	if lim < 2 || lim > 16 {
		return 0
	}
	return uint8((256 + int(lim) - 1) / int(lim))
}

// carryGrams is the grams a count's first call counts from which the
// count is a carry count (chunkScan.carryFrom; tests lower it): below
// it, the table's clearing costs more than the five instructions a gram
// the carry saves.
const carryGrams = 128

// carryCount starts a carry count bounded by lim on the cleared table
// and reports true, or reports false when lim has no carry step. The
// entries it leaves are at most d·(lim−1) (one that carried wrapped
// below d), the top a floor count after it starts from (newCount).
func (s *chunkScan) carryCount(lim uint8) bool {
	d := carryStep(lim)
	if d == 0 {
		return false
	}
	clearCounts((*[countSlots]uint8)(s.counts))
	s.countFloor, s.countTop, s.carry = 0, d*(lim-1), d
	return true
}

// countGramBytesCarry is countGramBytes on a table of carry counts
// (step d, carryStep's), at stride m, gramStride (the sparse count's,
// countGramBytes3's grams) or 1 (the dense count's, countGramBytes1's):
// the grams of gramUnits bytes at b[0], b[m], ... that b holds whole,
// each hashed as countGramBytes hashes it, its entry raised by d; false
// at the first that carries. The entries of a count that failed are
// left as they fell (the one that carried wrapped below d), none above
// d·(lim−1).
func countGramBytesCarry(counts *[countSlots]uint8, b []byte, m int, d uint8) bool {
	if len(b) < gramUnits {
		return true
	}
	if useCarryAsm {
		if m == 1 {
			return countGramBytes1CarryAsm(counts, b, d)
		}
		return countGramBytes3CarryAsm(counts, b, d)
	}
	return countGramBytesCarryGo(counts, b, m, d)
}

// countGramBytesCarryGo is countGramBytesCarry a gram at a time, at
// stride m (1 or gramStride): the code of the
// platforms without the assembly loops, and their tests' reference.
// len(b) >= gramUnits.
func countGramBytesCarryGo(counts *[countSlots]uint8, b []byte, m int, d uint8) bool {
	p := unsafe.Pointer(unsafe.SliceData(b))
	t := counts[:]
	for n := len(b) - gramUnits + 1; n > 0; n -= m {
		k := bytesGramSlot(p) // within b: a gram starts at each of the n
		v := t[k] + d
		if t[k] = v; v < d {
			return false
		}
		p = unsafe.Add(p, m)
	}
	return true
}

// countGramsCarry is countGramBytesCarry over code units: countGrams on
// a table of carry counts (step d), at stride m, gramStride or 1, each gram of gramUnits units hashed as
// countGrams hashes it (unitsGramSlot), its entry raised by d; false at
// the first that carries. A long history in buf (a message past ASCII,
// or one addPending did not take) is counted by it, as addPending's
// bytes are: the floor's count (countGrams1, countGrams3) took some 20
// instructions a gram, the assembly loops 13.
func countGramsCarry(counts *[countSlots]uint8, b []uint16, m int, d uint8) bool {
	if len(b) < gramUnits {
		return true
	}
	if useCarryAsm {
		if m == 1 {
			return countGrams1CarryAsm(counts, b, d)
		}
		return countGrams3CarryAsm(counts, b, d)
	}
	return countGramsCarryGo(counts, b, m, d)
}

// countGramsCarryGo is countGramsCarry a gram at a time, at stride m (1
// or gramStride): the code of the platforms without the assembly loops,
// and their tests' reference. len(b) >= gramUnits.
func countGramsCarryGo(counts *[countSlots]uint8, b []uint16, m int, d uint8) bool {
	p := unsafe.Pointer(unsafe.SliceData(b))
	t := counts[:]
	for n := len(b) - gramUnits + 1; n > 0; n -= m {
		k := unitsGramSlot(p) // within b: a gram starts at each of the n
		v := t[k] + d
		if t[k] = v; v < d {
			return false
		}
		p = unsafe.Add(p, 2*m)
	}
	return true
}

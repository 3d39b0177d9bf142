package detect

import "unsafe"

// countGrams1 and countGrams3 are countGrams at the strides the counts
// use, 1 (the dense count) and gramStride (the sparse one), four grams
// an iteration: the grams' offsets are constants, each load's
// displacement, where countGrams computed each word's address from m
// (three instructions a word), and the loop's test and step, the hash's
// constants and the table's nil test are paid once for four grams. As in
// countGrams, each count is stored before the next is loaded: a gram of
// the same slot reads the count before it.
func countGrams1(counts *[countSlots]uint8, b []uint16, floor, top uint8) bool {
	const m = 1
	p := unsafe.Pointer(unsafe.SliceData(b))
	t := counts[:] // nil-checked here, not at each gram
	lo, hi := uint32(floor), uint32(top)
	n := len(b) - gramUnits + 1 // grams' starts, at least one (countGrams)
	for ; n > 3*m; n -= 4 * m {
		k0 := ((*(*uint64)(p) ^ *(*uint64)(unsafe.Add(p, 8))*0x9E3779B97F4A7C15 ^
			*(*uint64)(unsafe.Add(p, 16))*0xC2B2AE3D27D4EB4F ^ *(*uint64)(unsafe.Add(p, 24))*0x165667B19E3779F9) * 0xD6E8FEB86659FD93) >> (64 - countBits)
		c0 := max(uint32(t[k0]), lo) + 1
		if t[k0] = uint8(c0); c0 >= hi {
			return false
		}
		k1 := ((*(*uint64)(unsafe.Add(p, 2*m)) ^ *(*uint64)(unsafe.Add(p, 2*m+8))*0x9E3779B97F4A7C15 ^ // 3m < n: the four within b
			*(*uint64)(unsafe.Add(p, 2*m+16))*0xC2B2AE3D27D4EB4F ^ *(*uint64)(unsafe.Add(p, 2*m+24))*0x165667B19E3779F9) * 0xD6E8FEB86659FD93) >> (64 - countBits)
		c1 := max(uint32(t[k1]), lo) + 1
		if t[k1] = uint8(c1); c1 >= hi {
			return false
		}
		k2 := ((*(*uint64)(unsafe.Add(p, 4*m)) ^ *(*uint64)(unsafe.Add(p, 4*m+8))*0x9E3779B97F4A7C15 ^
			*(*uint64)(unsafe.Add(p, 4*m+16))*0xC2B2AE3D27D4EB4F ^ *(*uint64)(unsafe.Add(p, 4*m+24))*0x165667B19E3779F9) * 0xD6E8FEB86659FD93) >> (64 - countBits)
		c2 := max(uint32(t[k2]), lo) + 1
		if t[k2] = uint8(c2); c2 >= hi {
			return false
		}
		k3 := ((*(*uint64)(unsafe.Add(p, 6*m)) ^ *(*uint64)(unsafe.Add(p, 6*m+8))*0x9E3779B97F4A7C15 ^
			*(*uint64)(unsafe.Add(p, 6*m+16))*0xC2B2AE3D27D4EB4F ^ *(*uint64)(unsafe.Add(p, 6*m+24))*0x165667B19E3779F9) * 0xD6E8FEB86659FD93) >> (64 - countBits)
		c3 := max(uint32(t[k3]), lo) + 1
		if t[k3] = uint8(c3); c3 >= hi {
			return false
		}
		p = unsafe.Add(p, 8*m)
	}
	for ; n > 0; n -= m { // up to three grams left
		k := unitsGramSlot(p)
		c := max(uint32(t[k]), lo) + 1
		if t[k] = uint8(c); c >= hi {
			return false
		}
		p = unsafe.Add(p, 2*m)
	}
	return true
}

// countGrams3 is countGrams1 at the sparse count's stride.
func countGrams3(counts *[countSlots]uint8, b []uint16, floor, top uint8) bool {
	const m = gramStride
	p := unsafe.Pointer(unsafe.SliceData(b))
	t := counts[:]
	lo, hi := uint32(floor), uint32(top)
	n := len(b) - gramUnits + 1
	for ; n > 3*m; n -= 4 * m {
		k0 := ((*(*uint64)(p) ^ *(*uint64)(unsafe.Add(p, 8))*0x9E3779B97F4A7C15 ^
			*(*uint64)(unsafe.Add(p, 16))*0xC2B2AE3D27D4EB4F ^ *(*uint64)(unsafe.Add(p, 24))*0x165667B19E3779F9) * 0xD6E8FEB86659FD93) >> (64 - countBits)
		c0 := max(uint32(t[k0]), lo) + 1
		if t[k0] = uint8(c0); c0 >= hi {
			return false
		}
		k1 := ((*(*uint64)(unsafe.Add(p, 2*m)) ^ *(*uint64)(unsafe.Add(p, 2*m+8))*0x9E3779B97F4A7C15 ^
			*(*uint64)(unsafe.Add(p, 2*m+16))*0xC2B2AE3D27D4EB4F ^ *(*uint64)(unsafe.Add(p, 2*m+24))*0x165667B19E3779F9) * 0xD6E8FEB86659FD93) >> (64 - countBits)
		c1 := max(uint32(t[k1]), lo) + 1
		if t[k1] = uint8(c1); c1 >= hi {
			return false
		}
		k2 := ((*(*uint64)(unsafe.Add(p, 4*m)) ^ *(*uint64)(unsafe.Add(p, 4*m+8))*0x9E3779B97F4A7C15 ^
			*(*uint64)(unsafe.Add(p, 4*m+16))*0xC2B2AE3D27D4EB4F ^ *(*uint64)(unsafe.Add(p, 4*m+24))*0x165667B19E3779F9) * 0xD6E8FEB86659FD93) >> (64 - countBits)
		c2 := max(uint32(t[k2]), lo) + 1
		if t[k2] = uint8(c2); c2 >= hi {
			return false
		}
		k3 := ((*(*uint64)(unsafe.Add(p, 6*m)) ^ *(*uint64)(unsafe.Add(p, 6*m+8))*0x9E3779B97F4A7C15 ^
			*(*uint64)(unsafe.Add(p, 6*m+16))*0xC2B2AE3D27D4EB4F ^ *(*uint64)(unsafe.Add(p, 6*m+24))*0x165667B19E3779F9) * 0xD6E8FEB86659FD93) >> (64 - countBits)
		c3 := max(uint32(t[k3]), lo) + 1
		if t[k3] = uint8(c3); c3 >= hi {
			return false
		}
		p = unsafe.Add(p, 8*m)
	}
	for ; n > 0; n -= m {
		k := unitsGramSlot(p)
		c := max(uint32(t[k]), lo) + 1
		if t[k] = uint8(c); c >= hi {
			return false
		}
		p = unsafe.Add(p, 2*m)
	}
	return true
}

// unitsGramSlot is the slot of the gram of gramUnits code units at p:
// its four words hashed, as countGrams hashes them. The unrolled loops
// of countGrams1 and countGrams3 write it out: its inlined call left an
// inlining mark, a NOP, at each gram; their last grams call it.
func unitsGramSlot(p unsafe.Pointer) uint64 {
	x0, x1 := *(*uint64)(p), *(*uint64)(unsafe.Add(p, 8))
	x2, x3 := *(*uint64)(unsafe.Add(p, 16)), *(*uint64)(unsafe.Add(p, 24))
	return ((x0 ^ x1*0x9E3779B97F4A7C15 ^ x2*0xC2B2AE3D27D4EB4F ^ x3*0x165667B19E3779F9) * 0xD6E8FEB86659FD93) >> (64 - countBits)
}

//go:build amd64 && !purego

package detect

import "unsafe"

// widenUnits writes s's leading ASCII bytes, whole blocks of 32, to
// dst as code units, and returns how many it wrote: with AVX2 by vector
// (gemini_widen_amd64.s: some 11 instructions a block, its top bits
// tested and its 32 bytes zero-extended, where appendUTF16's loop
// took some 40 a block of eight), else none. It stops before the first
// block holding a byte past ASCII, which appendUTF16's loop then reads.
// len(dst) >= len(s).
func widenUnits(dst []uint16, s string) int {
	if !useAVX2 || len(dst) < len(s) {
		return 0
	}
	return widenUnitsAVX2(unsafe.SliceData(dst), s)
}

//go:noescape
func widenUnitsAVX2(dst *uint16, s string) int

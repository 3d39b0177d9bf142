package detect

// Small counts: an ASCII output shorter than smallCountsBelow has each
// code point's count in a byte, so that fuzzy_repeat's bound for two such
// outputs (most of a coding agent's short outputs, whose bounds fail) is
// four vector minimums of 32 bytes and their sums (sharedSmall), where
// asciiShared took the minimums of 128 int32 counts in sixteen steps,
// and their clearing four stores of 32 bytes where the int32 counts took
// sixteen. The int32 counts an LCS reads its rows from are counted only
// for a pair whose bound passes (fuzzyEntry.histogram).

// smallCountsBelow bounds the length of an output counted in bytes: no
// count reaches 256.
const smallCountsBelow = 256

// countSmallGo is countSmall in Go: the reference of its tests. s is
// ASCII and shorter than smallCountsBelow.
func countSmallGo(a *[128]uint8, s string) {
	clear(a[:])
	for i := 0; i < len(s); i++ {
		a[s[i]&127]++
	}
}

// sharedSmallGo is sharedSmall a code point at a time: its tests'
// reference.
func sharedSmallGo(h, o *[128]uint8) int {
	n := 0
	for c := range 128 {
		n += int(min(h[c], o[c]))
	}
	return n
}

// smallPresentGo is smallPresent a count at a time: its tests'
// reference.
func smallPresentGo(a *[128]uint8) [2]uint64 {
	var p [2]uint64
	for c := range 128 {
		if a[c] != 0 {
			p[c>>6] |= 1 << (c & 63)
		}
	}
	return p
}

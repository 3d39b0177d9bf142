//go:build amd64 && !purego

package detect

// useSmallCounts says fuzzy_repeat counts short ASCII outputs in bytes:
// with AVX2, whose byte minimums and sums sharedSmall uses.
var useSmallCounts = useAVX2

// countSmall sets a to the counts of the bytes of s, ASCII and shorter
// than smallCountsBelow (histogram_small_amd64.s: the 128 bytes cleared
// in eight stores of 16, then each byte's load and its count's
// increment in memory, sixteen a step).
//
//go:noescape
func countSmall(a *[128]uint8, s string)

// sharedSmall returns the sum over the 128 ASCII code points of the
// smaller of h's and o's counts (histogram_small_amd64.s, AVX2: four
// VPMINUBs, their bytes summed by VPSADBW; some 25 instructions).
//
//go:noescape
func sharedSmall(h, o *[128]uint8) int

// smallPresent returns the ASCII code points a counts (a count not 0),
// bit c for code point c (histogram_small_amd64.s, AVX2: some 20
// instructions, where asciiPresent's of int32 counts took some 70).
//
//go:noescape
func smallPresent(a *[128]uint8) [2]uint64

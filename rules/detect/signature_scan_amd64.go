//go:build amd64 && !purego

package detect

// sigCands returns, from index i of s (len(s) >= 33), the first 32
// indexes from at whose byte pairs (the byte and the next, ASCII letters
// in either case) open a word of sigWords, as a mask (bit k: index at+k;
// none below i), or, with a mask of 0, an index at >= len(s)-1 when there
// are none: some 38 instructions for 32 bytes with AVX2
// (signature_scan_amd64.s), where scanSignature's pairs took 88.
func sigCands(s string, i int) (at int, mask uint32) {
	return sigCandsAVX2(s, i)
}

//go:noescape
func sigCandsAVX2(s string, i int) (at int, mask uint32)

// useSigCands says scanSignature reads by sigCands (the CPU runs AVX2).
var useSigCands = useAVX2

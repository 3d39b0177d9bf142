//go:build amd64 && !purego

package detect

// asciiShared returns the sum over the ASCII code points of the smaller of
// h's and o's counts: the ASCII part of histogram.bound, over all 128
// counts by vector (histogram_shared_amd64.s), eight a step with AVX2
// where the CPU has it, else four with SSE2. Some 60 instructions, where
// the loop over the code points one side lists took some eight a code
// point present, and listing them took setASCII eleven instructions a byte
// of a short text.
func asciiShared(h, o *[256]int32) int {
	if useAVX2 {
		return asciiSharedAVX2(h, o)
	}
	return asciiSharedSSE2(h, o)
}

//go:noescape
func asciiSharedAVX2(h, o *[256]int32) int

//go:noescape
func asciiSharedSSE2(h, o *[256]int32) int

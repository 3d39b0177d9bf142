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

// countASCII sets a's 128 ASCII counts to those of the bytes of s
// (setASCII's, its bytes ASCII): some 2.1 instructions a byte
// (histogram_shared_amd64.s: each byte's load and its count's increment,
// 32 a step, where sixteen took 2.2), where Go's loop of eight a step
// took 2.9, and four wide stores a count's clearing took eight.
func countASCII(a *[256]int32, s string) {
	if useAVX2 {
		countASCIIAVX2(a, s)
		return
	}
	countASCIISSE2(a, s)
}

//go:noescape
func countASCIIAVX2(a *[256]int32, s string)

//go:noescape
func countASCIISSE2(a *[256]int32, s string)

// asciiPresent returns the ASCII code points a counts (a count not 0),
// bit c for code point c: by vector with AVX2 (histogram_shared_amd64.s,
// some 70 instructions), else asciiPresentGo.
func asciiPresent(a *[256]int32) [2]uint64 {
	if useAVX2 {
		return asciiPresentAVX2(a)
	}
	return asciiPresentGo(a)
}

//go:noescape
func asciiPresentAVX2(a *[256]int32) [2]uint64

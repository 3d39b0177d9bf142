//go:build !amd64 || purego

package detect

// asciiShared returns the sum over the ASCII code points of the smaller of
// h's and o's counts (histogram_shared_amd64.go runs it by vector).
func asciiShared(h, o *[256]int32) int { return asciiSharedGo(h, o) }

// countASCII sets a's 128 ASCII counts to those of the bytes of s
// (histogram_shared_amd64.go counts them in assembly).
func countASCII(a *[256]int32, s string) { countASCIIGo(a, s) }

// asciiPresent returns the ASCII code points a counts (histogram_shared_amd64.go
// tests them by vector).
func asciiPresent(a *[256]int32) [2]uint64 { return asciiPresentGo(a) }

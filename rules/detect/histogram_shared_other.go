//go:build !amd64 || purego

package detect

// asciiShared returns the sum over the ASCII code points of the smaller of
// h's and o's counts (histogram_shared_amd64.go runs it by vector).
func asciiShared(h, o *[256]int32) int { return asciiSharedGo(h, o) }

//go:build !amd64 || purego

package detect

// sigCands is not used where useSigCands is false: scanSignature reads
// its pairs alone.
func sigCands(s string, i int) (at int, mask uint32) { return i, 0 }

var useSigCands = false

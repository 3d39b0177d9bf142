//go:build !amd64 || purego

package detect

// widenUnits writes none of s: appendUTF16's loop reads all of it.
func widenUnits(dst []uint16, s string) int { return 0 }

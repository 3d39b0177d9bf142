//go:build !amd64 || purego

package detect

// asciiSharedFuncs is empty: asciiShared is asciiSharedGo here.
func asciiSharedFuncs() []asciiSharedFunc { return nil }

// countASCIIFuncs is empty: countASCII is countASCIIGo here.
func countASCIIFuncs() []countASCIIFunc { return nil }

//go:build !amd64 || purego

package detect

// asciiSharedFuncs is empty: asciiShared is asciiSharedGo here.
func asciiSharedFuncs() []asciiSharedFunc { return nil }

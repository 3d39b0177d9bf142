//go:build amd64 && !purego

package detect

// asciiSharedFuncs are the vector loops this CPU runs.
func asciiSharedFuncs() []asciiSharedFunc {
	fs := []asciiSharedFunc{{"asciiSharedSSE2", asciiSharedSSE2}}
	if useAVX2 {
		fs = append(fs, asciiSharedFunc{"asciiSharedAVX2", asciiSharedAVX2})
	}
	return fs
}

// countASCIIFuncs are the assembly loops this CPU runs.
func countASCIIFuncs() []countASCIIFunc {
	fs := []countASCIIFunc{{"countASCIISSE2", countASCIISSE2}}
	if useAVX2 {
		fs = append(fs, countASCIIFunc{"countASCIIAVX2", countASCIIAVX2})
	}
	return fs
}

//go:build amd64 && !purego

package detect

type asciiBlockFunc struct {
	name string
	f    func(string) int
}

// asciiBlockFuncs are the vector loops this CPU runs.
func asciiBlockFuncs() []asciiBlockFunc {
	fs := []asciiBlockFunc{{"asciiBlocksSSE2", asciiBlocksSSE2}}
	if useAVX2 {
		fs = append(fs, asciiBlockFunc{"asciiBlocksAVX2", asciiBlocksAVX2})
	}
	return fs
}

//go:build !amd64 || purego

package detect

type asciiBlockFunc struct {
	name string
	f    func(string) int
}

// asciiBlockFuncs is empty: asciiBlocks is never called here.
func asciiBlockFuncs() []asciiBlockFunc { return nil }

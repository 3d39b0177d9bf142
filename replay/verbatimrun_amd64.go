//go:build amd64 && !purego

package replay

// verbatimRun returns the index of the first <, >, &, byte over 0x7f or
// backslash that does not start an escape encoding/json writes (\" \\
// \b \f \n \r \t) in b[j:], passing those escapes, or len(b) when there
// is none (or j >= len(b)); j is not negative. A scan that stopped at
// every backslash (verbatimIndex, before it) had goVerbatim call it
// again after each escape: ~50 instructions of call and setup a line of
// a tool's output.
//
//go:noescape
func verbatimRun(b []byte, j int) int

// verbatimRunSSE2 is verbatimRun 16 bytes a step, where the CPU has no
// AVX2 (verbatimRun goes to it then, and for a b shorter than 32 bytes).
//
//go:noescape
func verbatimRunSSE2(b []byte, j int) int

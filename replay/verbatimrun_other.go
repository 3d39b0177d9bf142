//go:build !amd64 || purego

package replay

// verbatimRun returns the index of the first <, >, &, byte over 0x7f or
// backslash that does not start an escape encoding/json writes (\" \\
// \b \f \n \r \t) in b[j:], passing those escapes, or len(b) when there
// is none (or j >= len(b)); j is not negative.
func verbatimRun(b []byte, j int) int { return verbatimRunSWAR(b, j) }

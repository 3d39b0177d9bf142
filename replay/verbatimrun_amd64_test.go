//go:build amd64 && !purego

package replay

// The SSE2 steps, which verbatimRun runs only where the CPU has no AVX2
// or b is shorter than 32 bytes, held to the byte loop on every b too.
func init() {
	verbatimScans = append(verbatimScans, struct {
		name string
		scan func([]byte, int) int
	}{"verbatimRunSSE2", verbatimRunSSE2})
}

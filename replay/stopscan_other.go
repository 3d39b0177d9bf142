//go:build !amd64 || purego

package replay

// vectorStops says the scans are vector scans, worth a call for a run
// longer than a word: here they are not, and validString and goVerbatim
// pass a run's words themselves.
const vectorStops = false

// special returns the index of the first '"', '\\' or byte below 0x20 in
// b[j:], or len(b) (j itself when j > len(b)).
func special(b []byte, j int) int { return specialSWAR(b, j) }

// stringRun returns the index of the first '"', byte below 0x20 or
// backslash that does not start a two-byte escape (\" \\ \/ \b \f \n \r
// \t) in b[j:], or len(b) (j itself when j > len(b)), and whether it
// passed a two-byte escape.
func stringRun(b []byte, j int) (stop int, esc bool) { return stringRunSWAR(b, j) }

// verbatimIndex returns the index of the first <, >, &, '\\' or byte over
// 0x7f in b[j:], or len(b) (j itself when j > len(b)).
func verbatimIndex(b []byte, j int) int { return verbatimIndexSWAR(b, j) }

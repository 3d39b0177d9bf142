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

// unescapeRun copies src to dst, a two-byte escape (\" \\ \/ \b \f \n \r
// \t) as the byte it stands for, up to the first other backslash (a \u
// escape), with stopHigh the first byte over 0x7f, or the end of src or
// dst, whichever comes first: it returns the bytes written (w) and read
// (r). dst and src do not overlap; the bytes of dst after the w written
// may be written too.
func unescapeRun(dst, src []byte, stopHigh bool) (w, r int) {
	return unescapeRunBytes(dst, src, stopHigh)
}

// copyStringRun is not here (copyStrings): it copies nothing.
func copyStringRun(dst, src []byte) (w, r int) { return 0, 0 }

// copyStrings says copyStringRun may be called.
const copyStrings = false

// stringClose is not here (stringCloses): validString loops over stringRun.
func stringClose(b []byte, j int) (end int, esc bool) { return -1, false }

// stringCloses says stringClose may be called.
const stringCloses = false

//go:build amd64 && !purego

package replay

import "golang.org/x/sys/cpu"

// vectorStops says the scans are vector scans (stopscan_amd64.s), worth a
// call for a run longer than a word.
const vectorStops = true

// special returns the index of the first '"', '\\' or byte below 0x20 in
// b[j:], or len(b) (j itself when j > len(b)).
//
//go:noescape
func special(b []byte, j int) int

// stringRun returns the index of the first '"', byte below 0x20 or
// backslash that does not start a two-byte escape (\" \\ \/ \b \f \n \r
// \t) in b[j:], or len(b) (j itself when j > len(b)), and whether it
// passed a two-byte escape.
//
//go:noescape
func stringRun(b []byte, j int) (stop int, esc bool)

// stringRunSSE2 is stringRun 16 bytes a step, where the CPU has no AVX2
// (stringRun goes to it then, and for a b shorter than 32 bytes).
//
//go:noescape
func stringRunSSE2(b []byte, j int) (stop int, esc bool)

// stringClose returns the index after the closing quote of the string
// whose body starts at b[j], or -1 when it is invalid or cut, and whether
// it holds an escape: validString past its first word, in one call (32
// bytes a step, the escapes passed within a step). AVX2 only, and b holds
// at least 32 bytes (stringCloses).
//
//go:noescape
func stringClose(b []byte, j int) (end int, esc bool)

// stringCloses says stringClose may be called for a b of 32 bytes or more.
var stringCloses = useAVX2

// useAVX2 says the CPU and the OS run AVX2 (the 32-byte registers
// saved): stringRun reads it at each call, a byte always the same.
var useAVX2 = cpu.X86.HasAVX2

// unescapeRun copies src to dst, a two-byte escape (\" \\ \/ \b \f \n \r
// \t) as the byte it stands for, up to the first other backslash (a \u
// escape), with stopHigh the first byte over 0x7f, or the end of src or
// dst, whichever comes first: it returns the bytes written (w) and read
// (r). dst and src do not overlap; the bytes of dst after the w written
// may be written too. 16 bytes a step (stopscan_amd64.s).
//
//go:noescape
func unescapeRun(dst, src []byte, stopHigh bool) (w, r int)

// copyStringRun is unescapeRun for a string not yet validated: it also
// stops at '"', at a byte below 0x20 and at every byte over 0x7f, and
// returns once 32 bytes of src or dst or fewer are left. AVX2 only
// (copyStrings).
//
//go:noescape
func copyStringRun(dst, src []byte) (w, r int)

// copyStrings says copyStringRun may be called.
var copyStrings = useAVX2

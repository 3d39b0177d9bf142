package replay

import (
	"strings"
	"testing"
)

// verbatimRunRef is verbatimRun a byte at a time.
func verbatimRunRef(b []byte, j int) int {
	for j < len(b) {
		switch c := b[j]; {
		case c == '\\':
			if j+1 >= len(b) || !strings.ContainsRune(`"\bfnrt`, rune(b[j+1])) {
				return j
			}
			j += 2
		case c >= 0x80 || c == '<' || c == '>' || c == '&':
			return j
		default:
			j++
		}
	}
	return len(b)
}

// verbatimScans are the scans TestVerbatimRun holds to the byte loop
// (verbatimrun_amd64_test.go adds the SSE2 steps, which verbatimRun
// passes to where the CPU has no AVX2).
var verbatimScans = []struct {
	name string
	scan func([]byte, int) int
}{{"verbatimRun", verbatimRun}, {"verbatimRunSWAR", verbatimRunSWAR}}

// verbatimRun (the assembly on amd64: AVX2 from 32 bytes, SSE2 below)
// and verbatimRunSWAR against the byte loop, from every position: up to
// 104 bytes (three 32-byte steps, six of 16, and every tail, the bytes
// before the position shifted out of the last step), a fill of plain
// bytes or of escapes, any byte at one place and a backslash
// before it, or a run of backslashes (an escaped backslash before a quote
// or a letter), escapes that straddle two steps or end b.
func TestVerbatimRun(t *testing.T) {
	kinds := []byte{0, '\\', '<', '>', '&', '"', '/', 'b', 'f', 'n', 'r', 't', 'u', 'a', 0x7f, 0x80, 0xff}
	scans := verbatimScans
	check := func(body []byte) {
		t.Helper()
		for j := 0; j <= len(body)+1; j++ {
			want := verbatimRunRef(body, j)
			for _, s := range scans {
				if got := s.scan(body, j); got != want {
					t.Fatalf("%s(%q, %d) = %d, want %d", s.name, body, j, got, want)
				}
			}
		}
	}
	for _, fill := range []string{"a", "\\n", "\\\\", "ab\\t", "0123456789abcde\\\""} {
		for n := range 105 {
			base := []byte(strings.Repeat(fill, n))[:n]
			check(base)
			for pos := range n {
				for _, c := range kinds {
					if n > 36 && strings.IndexByte("\\<n\x80", c) < 0 {
						continue // the longer bodies: the tails and the steps' ends
					}
					body := append([]byte(nil), base...)
					body[pos] = c
					check(body)
					if pos > 0 {
						body[pos-1] = '\\'
						check(body)
					}
				}
				body := append([]byte(nil), base...)
				for k := pos; k < n && k < pos+3; k++ {
					body[k] = '\\'
				}
				check(body)
			}
		}
	}
}

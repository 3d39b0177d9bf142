//go:build amd64 && !purego

package replay

import (
	"bytes"
	"testing"
)

// On amd64 stringRun is the AVX2 scan where the CPU has AVX2, and
// stringRunSSE2 where it has not: both are held to the byte loop, and the
// dispatch is tested with AVX2 off; so is unescapeRun's.
func init() {
	stringRuns = append(stringRuns,
		stringRunCase{"stringRunSSE2", stringRunSSE2},
		stringRunCase{"stringRun without AVX2", func(b []byte, j int) (int, bool) {
			was := useAVX2
			useAVX2 = false
			defer func() { useAVX2 = was }()
			return stringRun(b, j)
		}},
	)
	unescapeRuns = append(unescapeRuns, unescapeRunCase{"unescapeRun without AVX2", func(dst, src []byte, stopHigh bool) (int, int) {
		was := useAVX2
		useAVX2 = false
		defer func() { useAVX2 = was }()
		return unescapeRun(dst, src, stopHigh)
	}})
}

func TestStringRunAVX2Present(t *testing.T) {
	if !useAVX2 {
		t.Skip("this CPU has no AVX2: stringRun is stringRunSSE2 here, and its 32-byte path is not tested")
	}
}

// The AVX2 scan passes an escape within its mask: an escape whose
// backslash is the last byte of a 32-byte step (its escaped byte the
// next step's first) or the one before, then a stop anywhere after.
func TestStringRunEscapeAtStepEnd(t *testing.T) {
	for _, s := range stringRuns {
		for n := 32; n <= 100; n++ {
			for p := range n - 1 {
				b := bytes.Repeat([]byte{'x'}, n)
				b[p], b[p+1] = '\\', '"'
				for _, stop := range []int{-1, p + 2, p + 3, n - 1} {
					if stop >= n || stop >= 0 && stop < p+2 {
						continue
					}
					if stop >= 0 {
						b[stop] = '"'
					}
					for _, from := range []int{0, 1, p - 31, p - 30, p - 32, p} {
						if from < 0 || from > p {
							continue
						}
						gotStop, gotEsc := s.run(b, from)
						wantStop, wantEsc := stringRunRef(b, from)
						if gotStop != wantStop || gotEsc != wantEsc {
							t.Fatalf("%s(%q, %d) = %d %v, want %d %v", s.name, b, from, gotStop, gotEsc, wantStop, wantEsc)
						}
					}
					if stop >= 0 {
						b[stop] = 'x'
					}
				}
			}
		}
	}
}

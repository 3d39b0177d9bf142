//go:build amd64 && !purego

package replay

import (
	"bytes"
	"strings"
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

// copyStringRunRef is copyStringRun step by step: 32 bytes a step while
// more than 32 are left, each step's bytes up to its first stop.
func copyStringRunRef(dst, src []byte) (w, r int) {
	n := min(len(src), len(dst))
	for r+32 < n {
		end, k := r+32, r
		for k < end && src[k] >= 0x20 && src[k] < 0x80 && src[k] != '"' && src[k] != '\\' {
			k++
		}
		w += copy(dst[w:], src[r:k])
		r = k
		if k == end {
			continue
		}
		if src[k] != '\\' || k+1 >= n || simpleEscape[src[k+1]] == 0 {
			return w, r
		}
		dst[w] = simpleEscape[src[k+1]]
		w, r = w+1, k+2
	}
	return w, r
}

// checkCopyStringRun holds copyStringRun to copyStringRunRef on src, with
// a dst of dn bytes followed by bytes it must not write. src is followed
// in its array by bytes a backslash would escape, which a read past its
// end would take.
func checkCopyStringRun(t *testing.T, src []byte, dn int) {
	t.Helper()
	if !useAVX2 {
		t.Skip("copyStringRun runs where the CPU has AVX2 only")
	}
	src = append(bytes.Clone(src), "nnnn"...)[:len(src)]
	want := make([]byte, dn)
	ww, wr := copyStringRunRef(want, src)
	buf := bytes.Repeat([]byte{0xAA}, dn+40)
	gw, gr := copyStringRun(buf[:dn:dn], src)
	if gw != ww || gr != wr || !bytes.Equal(buf[:gw], want[:ww]) {
		t.Fatalf("copyStringRun(%d bytes, %q) = %d %d %q, want %d %d %q", dn, src, gw, gr, buf[:gw], ww, wr, want[:ww])
	}
	for _, c := range buf[dn:] {
		if c != 0xAA {
			t.Fatalf("copyStringRun(%d bytes, %q) wrote past dst: %q", dn, src, buf[dn:])
		}
	}
}

// copyStringRun copies as its reference does, whatever byte stands
// wherever among neighbours plain, escaped or a backslash's halves, up to
// 100 bytes, into a dst as long as src, shorter or longer.
func TestCopyStringRun(t *testing.T) {
	kinds := []int{0, 0x1f, ' ', '"', '\\', '/', 'b', 'n', 'u', 'a', 0x7f, 0x80, 0xff}
	for _, fill := range []string{"a", `\n`, `xy\/`, `\\`, `abcdefghijklm\"`, "\xe9t"} {
		for n := range 101 {
			src := []byte(strings.Repeat(fill, n))[:n]
			for pos := range n {
				for _, c := range kinds {
					keep := src[pos]
					src[pos] = byte(c)
					for _, dn := range []int{n, n + 3, n - 1, n - 33, pos, pos + 1} {
						if dn >= 0 {
							checkCopyStringRun(t, src, dn)
						}
					}
					src[pos] = keep
				}
			}
		}
	}
}

// copyStringRun stops at a backslash that ends src, whatever byte
// follows src in its array, after escapes that move its steps to every
// place (TestUnescapeRunEndBackslash).
func TestCopyStringRunEndBackslash(t *testing.T) {
	for _, lead := range []string{"", `\n`, `\n\t`, `ab\"`} {
		for m := range 80 {
			src := []byte(lead + strings.Repeat("a", m) + `\`)
			checkCopyStringRun(t, src, len(src))
			checkCopyStringRun(t, src, len(src)+3)
		}
	}
}

func FuzzCopyStringRun(f *testing.F) {
	for _, s := range []string{"", "0123456789abcdef0123456789abcdef\\n0123456789abcdef0123456789abcdef\"x", "0123456789abcdef0123456789abcdef\\u00e9"} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, src []byte, short uint8) {
		checkCopyStringRun(t, src, max(len(src)-int(short)%40, 0))
		checkCopyStringRun(t, src, len(src)+int(short)%8)
	})
}

// copyString without copyStringRun (a CPU without AVX2) is held to
// validString and appendText as well.
func TestCopyStringNoAVX2(t *testing.T) {
	was := copyStrings
	copyStrings = false
	defer func() { copyStrings = was }()
	TestCopyString(t)
}

// stringClose reads a string's body as validStringRef does, whatever byte
// stands wherever among neighbours plain, escaped (two-byte or \u) or a
// backslash's halves, from starts in the first and later 32-byte steps,
// up to 100 bytes: a stop at each step's end and in b's last bytes (the
// tail, and a backslash ending b), an escape across a step's end.
func TestStringClose(t *testing.T) {
	if !stringCloses {
		t.Skip("stringClose runs where the CPU has AVX2 only")
	}
	// Each byte STRINGSTOP32's signed compare sits between, and those
	// that differ from them in their high bit alone.
	kinds := []byte{0, 0x1f, ' ', '!', '"', '#', '\\', '/', 'n', 'u', '0', 'F', 'g', 0x7f, 0x80, 0x9f, 0xa0, 0xa1, 0xa2, 0xdc, 0xff}
	for _, fill := range []string{"a", `\n`, `xy\/`, `\\`, `abcdefghijklm\"`, `ab\u00e9`, `\uD83D\uDE00`} {
		for n := 32; n <= 100; n++ {
			b := []byte(strings.Repeat(fill, n))[:n]
			for pos := range n {
				for _, c := range kinds {
					keep := b[pos]
					b[pos] = c
					for _, from := range []int{0, 1, 2, 7, 8, 31, 32, 33, n - 1, n} {
						if from > n {
							continue
						}
						checkStringClose(t, b, from)
					}
					b[pos] = keep
				}
			}
		}
	}
}

func checkStringClose(t *testing.T, b []byte, from int) {
	t.Helper()
	gotEnd, gotEsc := stringClose(b, from)
	wantEnd, wantEsc := validStringRef(b, from-1)
	if gotEnd != wantEnd || gotEsc != wantEsc {
		t.Fatalf("stringClose(%q, %d) = %d %v, want %d %v", b, from, gotEnd, gotEsc, wantEnd, wantEsc)
	}
}

func FuzzStringClose(f *testing.F) {
	for _, s := range []string{
		`0123456789abcdef0123456789abcdef\n0123456789abcdef"`,
		`0123456789abcdef0123456789abcde\u00e9\"0123456789abcdef\\"`,
		`0123456789abcdef0123456789abcdef0123456789abcdef\`,
	} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, b []byte, from uint8) {
		if !stringCloses || len(b) < 32 {
			return
		}
		checkStringClose(t, b, int(from)%(len(b)+1))
	})
}

// validString without stringClose (a CPU without AVX2) is held to the
// byte loop as well.
func TestValidStringNoAVX2(t *testing.T) {
	was := stringCloses
	stringCloses = false
	defer func() { stringCloses = was }()
	TestValidString(t)
}

// copyStringRun against the plain loop on two escapes close together
// (escapesClose): a quote, an escape, a \u, a byte below 0x20 or over
// 0x7f as the third stop.
func TestCopyStringRunEscapesClose(t *testing.T) {
	escapesClose([]string{`"`, `\t`, `\u`, "\x01", "\x80", `\`}, func(src []byte) {
		checkCopyStringRun(t, src, len(src))
		checkCopyStringRun(t, src, len(src)-1)
	})
}

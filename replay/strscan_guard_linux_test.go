//go:build amd64 && !purego

package replay

import (
	"strings"
	"testing"
)

// pageEnd returns a slice of n bytes ending where a page that may not be
// read begins, so that a scan reading one byte past its slice faults
// (which a result test alone cannot see when the byte read changes
// nothing).
func pageEnd(t *testing.T, n int) []byte {
	t.Helper()
	g := newGuardPage(t)
	return g.mem[g.size-n : g.size : g.size]
}

// stringClose reads nothing past b: a string ending b in each kind of
// byte (a backslash above all: its escaped byte would be the next),
// after neighbours plain or escaped, from each start.
func TestStringCloseAtPageEnd(t *testing.T) {
	if !stringCloses {
		t.Skip("stringClose runs where the CPU has AVX2 only")
	}
	for _, fill := range []string{"a", `\n`, `\\`, `ab\u00e9`} {
		for n := 32; n <= 70; n++ {
			b := pageEnd(t, n)
			copy(b, strings.Repeat(fill, n))
			for _, c := range []byte{'\\', '"', 'a', 0x1f, 'u'} {
				b[n-1] = c
				for from := range n + 1 {
					checkStringClose(t, b, from)
				}
			}
		}
	}
}

// asciiPlain32 reads nothing past b nor before it.
func TestASCIIPlain32AtPageEnd(t *testing.T) {
	if !asciiPlains {
		t.Skip("asciiPlain32 runs where the CPU has AVX2 only")
	}
	for n := 32; n <= 100; n++ {
		b := pageEnd(t, n)
		copy(b, strings.Repeat("a", n))
		for _, c := range []byte{'a', '\\', 0x80} {
			b[n-1] = c
			if got, want := asciiPlain32(b), plainASCIIRef(b); got != want {
				t.Fatalf("asciiPlain32(%q) = %v, want %v", b, got, want)
			}
		}
	}
}

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

// unescapeRun and copyStringRun read nothing past src and write nothing
// past dst, each ending where a page that may not be touched begins: a
// backslash, a \n escape (its stop's two bytes told by one compare, the
// thirteenth round's fast path), two of them or a \t at each of the last
// 100 places of src, cut where src ends, into a dst as long as src or
// half as long; and each reads as its reference does.
func TestCopyRunsAtPageEnd(t *testing.T) {
	gs, gd := newGuardPage(t), newGuardPage(t)
	for n := 1; n <= 140; n++ {
		for pos := max(0, n-100); pos < n; pos++ {
			for _, esc := range []string{`\`, `\n`, `\n\n`, `\t`} {
				s := []byte(strings.Repeat("a", n))
				copy(s[pos:], esc)
				src := gs.at(s)
				for _, dn := range []int{n, n / 2} {
					dst := gd.mem[gd.size-dn : gd.size : gd.size]
					want := make([]byte, dn)
					for _, stopHigh := range []bool{false, true} {
						gw, gr := unescapeRun(dst, src, stopHigh)
						ww, wr := unescapeRunBytes(want, src, stopHigh)
						if gw != ww || gr != wr || string(dst[:gw]) != string(want[:ww]) {
							t.Fatalf("unescapeRun(%d bytes, %q, %v) = %d %d %q, want %d %d %q", dn, src, stopHigh, gw, gr, dst[:gw], ww, wr, want[:ww])
						}
					}
					if useAVX2 {
						gw, gr := copyStringRun(dst, src)
						ww, wr := copyStringRunRef(want, src)
						if gw != ww || gr != wr || string(dst[:gw]) != string(want[:ww]) {
							t.Fatalf("copyStringRun(%d bytes, %q) = %d %d %q, want %d %d %q", dn, src, gw, gr, dst[:gw], ww, wr, want[:ww])
						}
					}
				}
			}
		}
	}
}

//go:build amd64 && !purego

package replay

import (
	"bytes"
	"testing"
)

// asciiPlain32 says what the byte loop says for every length from 32 to
// 100 (one to three steps and every tail) with each byte that matters
// (a backslash, bytes over 0x7f, neighbours of both) at every place,
// and plainASCII with and without it.
func TestASCIIPlain32(t *testing.T) {
	if !asciiPlains {
		t.Skip("asciiPlain32 runs where the CPU has AVX2 only")
	}
	was := asciiPlains
	defer func() { asciiPlains = was }()
	for n := 32; n <= 100; n++ {
		b := bytes.Repeat([]byte{'a'}, n)
		for i := -1; i < n; i++ {
			for _, c := range []byte{'\\', 0x7f, 0x80, 0xdc, 0xff, 0x5d, 0x5b, 0x00, '"'} {
				if i >= 0 {
					b[i] = c
				}
				want := plainASCIIRef(b)
				if got := asciiPlain32(b); got != want {
					t.Fatalf("asciiPlain32(%q) = %v, want %v", b, got, want)
				}
				for _, on := range []bool{true, false} {
					asciiPlains = on
					if got := plainASCII(b); got != want {
						t.Fatalf("plainASCII(%q) (asciiPlain32 %v) = %v, want %v", b, on, got, want)
					}
				}
				asciiPlains = was
			}
			if i >= 0 {
				b[i] = 'a'
			}
		}
	}
}

func FuzzASCIIPlain32(f *testing.F) {
	f.Add([]byte("0123456789abcdef0123456789abcdef\\"))
	f.Add([]byte("caf\xc3\xa9 terminal, a text block of a few words"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if !asciiPlains || len(b) < 32 {
			return
		}
		if got, want := asciiPlain32(b), plainASCIIRef(b); got != want {
			t.Fatalf("asciiPlain32(%q) = %v, want %v", b, got, want)
		}
	})
}

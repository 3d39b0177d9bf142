package replay

import "testing"

// TestEqualShort holds equalShort to ==: strings of every length to 24,
// equal, and with one byte changed at every place, each a view inside a
// longer string (bytes on either side that a load past it would meet).
func TestEqualShort(t *testing.T) {
	for n := 0; n <= 24; n++ {
		buf := make([]byte, n+16)
		for i := range buf {
			buf[i] = byte('a' + i%26)
		}
		a := string(buf[8 : 8+n])
		for i := -1; i < n; i++ {
			other := append([]byte(nil), buf...)
			if i >= 0 {
				other[8+i] ^= 0x20
			}
			for _, b := range []string{string(other[8 : 8+n]), string(other[7 : 7+n]), string(other[8 : 9+n])} {
				if got, want := equalShort(a, b), a == b; got != want {
					t.Fatalf("equalShort(%q, %q) = %v, want %v", a, b, got, want)
				}
			}
		}
	}
}

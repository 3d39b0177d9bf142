package replay

import (
	"bytes"
	"testing"
)

// appendKey writes a key as appendGoString(dst, k, true) does: every
// byte at every place of keys of 0 to 20 bytes, each in an array of its
// length and in one with bytes after it that are not plain (a quote, a
// control byte, a high byte: read with a short key's word, and to be
// taken as plain there).
func TestAppendKey(t *testing.T) {
	for n := 0; n <= 20; n++ {
		for at := 0; at < max(n, 1); at++ {
			for c := 0; c < 256; c++ {
				key := bytes.Repeat([]byte("k"), n)
				if n > 0 {
					key[at] = byte(c)
				}
				want := string(appendGoString([]byte("x"), key, true))
				exact := append([]byte(nil), key...)
				for _, after := range []string{"", `"`, "\x00", "\xff<&", `\`} {
					k := append(append([]byte(nil), key...), after...)[:n]
					if after == "" {
						k = exact
					}
					if got := string(appendKey([]byte("x"), k)); got != want {
						t.Fatalf("key %q (then %q): %q, want %q", key, after, got, want)
					}
				}
			}
		}
	}
}

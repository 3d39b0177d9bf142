package replay

import (
	"strings"
	"testing"
)

// TestCanonAppendText holds canonWriter.appendText of a string to the
// string it decodes to (rawValue.Str): plain ASCII strings of 0 to 40
// bytes (plainASCII's words, its tail and its vector steps), each with
// an escape, a character over 0x7f or a byte that is not UTF-8 at every
// position.
func TestCanonAppendText(t *testing.T) {
	var w canonWriter
	for n := range 41 {
		for pos := range n + 1 {
			for _, c := range []string{"", "a", `\n`, `\"`, `\\`, `\u0041`, `\ud83d\ude00`, "é", "\u2028", "\xff", "\xc3", "<&>"} {
				body := strings.Repeat("k", pos) + c + strings.Repeat("k", n-pos)
				v := rawValue(`"` + body + `"`)
				want, ok := v.Str()
				if !ok {
					t.Fatalf("%q: not a string", v)
				}
				w.buf = append(w.buf[:0], '>')
				w.appendText(v)
				if got := string(w.buf[1:]); got != want {
					t.Fatalf("appendText(%q) = %q, want %q", v, got, want)
				}
			}
		}
	}
}

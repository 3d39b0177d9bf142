package detect

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestASCIIBlocks holds asciiBlocks (each of its vector loops, where the
// CPU runs them) to its contract on ASCII texts of every length up to 400
// with a byte over 0x7f at every place: the prefix it returns is ASCII, and
// it stops short of the first such byte, or of the end, by less than a
// block of 32.
func TestASCIIBlocks(t *testing.T) {
	for _, f := range asciiBlockFuncs() {
		for n := range 401 {
			ascii := strings.Repeat("abcdefghij", 41)[:n]
			check := func(s string, stop int) {
				i := f.f(s)
				if i < 0 || i > stop || stop-i >= 32 || strings.ContainsFunc(s[:i], func(r rune) bool { return r >= utf8.RuneSelf }) {
					t.Fatalf("%s(%q) = %d, want an ASCII prefix within 32 of %d", f.name, s, i, stop)
				}
			}
			check(ascii, n)
			for i := range n + 1 {
				check(ascii[:i]+"\x80"+ascii[i:], i)
				check(ascii[:i]+"\xff"+ascii[i:], i)
			}
		}
	}
}

// TestCountRunesLongEveryPlace is TestCountRunesEveryPlace for texts long
// enough to be measured by asciiBlocks first (up to 300 bytes).
func TestCountRunesLongEveryPlace(t *testing.T) {
	countRunesEveryPlace(t, asciiBlocksFrom-4, 300)
}

// TestDecodeRunesEveryPlace holds decodeRunes, whose ASCII blocks of 32
// are widened by vector (widenASCII), to ranging over the text: ASCII
// texts of every length up to 300 with a code point past ASCII, and an
// invalid byte, at every place, and texts of runs of both.
func TestDecodeRunesEveryPlace(t *testing.T) {
	check := func(s string) {
		t.Helper()
		want := []rune(s)
		got := make([]rune, len(s)+1)
		got = got[:decodeRunes(got[:len(s)], s)]
		if !slices.Equal(got, want) {
			t.Fatalf("decodeRunes(%q) = %q, want %q", s, got, want)
		}
	}
	for n := range 301 {
		ascii := strings.Repeat("abcdefghi\n", 31)[:n]
		check(ascii)
		for i := range n + 1 {
			check(ascii[:i] + "é" + ascii[i:])
			check(ascii[:i] + "\xff" + ascii[i:])
			check(ascii[:i] + "日本" + ascii[:n-i])
		}
	}
	for _, s := range []string{strings.Repeat("日本語", 40), strings.Repeat("ab€", 50) + strings.Repeat("x", 70), strings.Repeat(strings.Repeat("y", 33)+"\u00e9", 9)} {
		check(s)
	}
}

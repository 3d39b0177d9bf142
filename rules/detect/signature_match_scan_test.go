package detect

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestIsReSpace holds isReSpace's bit test to RE2's \s, the five bytes
// compared one by one, over every byte.
func TestIsReSpace(t *testing.T) {
	for c := range 256 {
		b := byte(c)
		if got, want := isReSpace(b), b == ' ' || b == '\t' || b == '\n' || b == '\f' || b == '\r'; got != want {
			t.Fatalf("isReSpace(%#x) = %v, want %v", b, got, want)
		}
	}
}

// TestEndWordAsWordLen holds endWord, which tells ASCII word bytes by
// asciiWord, to wordLen's loop: every byte at each place after a word,
// and random texts of word bytes, ſ, K (whole and cut short) and others
// from each place.
func TestEndWordAsWordLen(t *testing.T) {
	plain := func(s string, i int) int {
		for n := wordLen(s, i); n > 0; n = wordLen(s, i) {
			i += n
		}
		return i
	}
	check := func(s string, i int) {
		t.Helper()
		if got, want := endWord(s, i), plain(s, i); got != want {
			t.Fatalf("endWord(%q, %d) = %d, want %d", s, i, got, want)
		}
	}
	for c := range 256 {
		for _, s := range []string{string(rune(0)) + string([]byte{byte(c)}), "ab_9" + string([]byte{byte(c)}) + "z", string([]byte{byte(c)})} {
			for i := range len(s) + 1 {
				check(s, i)
			}
		}
	}
	pieces := []string{"a", "Z", "0", "_", "\u017f", "\u212a", "\xc5", "\xe2\x84", "\xe2", " ", "-", ".", "\n", "é", "\xff", "`", "@", "[", "{", "/", ":"}
	r := rand.New(rand.NewPCG(14, 7))
	for range 100000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		for i := range len(s) + 1 {
			check(s, i)
		}
	}
}

// TestFoldWordAsFoldLen holds foldWord's packed compare to foldLen: the
// packed constants are their words' bytes, and over random texts of the
// words' letters in either case, ſ, K (whole and cut short) and other
// bytes, each word's match at every place (with eight bytes after it or
// not) is foldLen's.
func TestFoldWordAsFoldLen(t *testing.T) {
	words := []struct {
		w      string
		packed uint64
	}{{"error", packedError}, {"fail", packedFail}, {"test", packedTest}}
	for _, w := range words {
		var p uint64
		for k := range len(w.w) {
			p |= uint64(w.w[k]) << (8 * k)
		}
		if p != w.packed {
			t.Fatalf("%q packed %#x, want %#x", w.w, w.packed, p)
		}
	}
	pieces := []string{"e", "E", "r", "R", "o", "O", "a", "A", "t", "T", "f", "F", "i", "I", "l", "L", "s", "S", "k", "K",
		"\u017f", "\u212a", "\xc5", "\xe2\x84", "\xe2", " ", "@", "`", "\x05", "\x25", "error", "ERROR", "test", "fail", "at"}
	r := rand.New(rand.NewPCG(14, 9))
	for range 100000 {
		var b strings.Builder
		for range r.IntN(10) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		for i := range len(s) + 1 {
			for _, w := range words {
				if got, want := foldWord(s, i, w.w, w.packed), foldLen(s, i, w.w); got != want {
					t.Fatalf("foldWord(%q, %d, %q) = %d, foldLen %d", s, i, w.w, got, want)
				}
			}
		}
	}
}

// TestHasWordAtAsFoldAt holds hasWordAt's packed compare to hasFoldAt
// (whose first byte scanSignature has tested): every word of sigWords at
// every place of random texts of their letters in either case, their
// prefixes and other bytes, where the first byte matches.
func TestHasWordAtAsFoldAt(t *testing.T) {
	pieces := []string{"e", "E", "r", "o", "f", "a", "i", "l", "m", "d", "c", "h", "n", "g", "u", "p", "t", "x", "D", "X",
		"\x05", "\x25", "@", "`", " ", "\xc5", "error", "FAIL", "modified", "Changed", "updateD", "fixed", "modifie", "fixe"}
	r := rand.New(rand.NewPCG(14, 11))
	for range 100000 {
		var b strings.Builder
		for range r.IntN(8) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		for i := range len(s) {
			for k := range sigWords {
				w := &sigWords[k]
				if s[i]|0x20 != w.word[0] {
					continue
				}
				if got, want := hasWordAt(s, i, w), hasFoldAt(s, i, w.word); got != want {
					t.Fatalf("hasWordAt(%q, %d, %q) = %v, hasFoldAt %v", s, i, w.word, got, want)
				}
			}
		}
	}
}

// TestFoldAtAsFoldLen holds foldAt to foldLen(s, t, "at") over every two
// bytes, with bytes after them or not, and the first bytes of ſ and K.
func TestFoldAtAsFoldLen(t *testing.T) {
	for a := range 256 {
		for b := range 256 {
			for _, tail := range []string{"", "x", "\x84\xaa", "\xbf"} {
				s := string([]byte{byte(a), byte(b)}) + tail
				if got, want := foldAt(s, 0), foldLen(s, 0, "at") > 0; got != want {
					t.Fatalf("foldAt(%q) = %v, foldLen %v", s, got, want)
				}
			}
		}
	}
}

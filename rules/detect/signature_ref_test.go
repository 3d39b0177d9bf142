package detect

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// The signature matchers as they were before verbSet's pair test and
// appendNorm's copy, kept as the reference FuzzSignatureRef holds the
// new ones to (the regular expressions of signature_test.go remain the
// reference of both).

func refVerbAt(s string, i int, verbs []string) int {
	c := s[i] | 0x20
	for _, v := range verbs {
		if v[0] == c {
			return foldLen(s, i, v)
		}
	}
	return 0
}

var (
	refFileVerbs   = []string{"modified", "changed", "updated", "fixed"}
	refActionVerbs = []string{"added", "removed", "fixed", "updated", "changed"}
)

func refMatchSigFile(s string) (file string, end int, ok bool) {
	for i := 0; i < len(s); i++ {
		n := refVerbAt(s, i, refFileVerbs)
		if n == 0 {
			continue
		}
		q := skipReSpace(s, i+n)
		if q == i+n {
			continue
		}
		e := endNonSpace(s, q)
		for k := e - 3; k > q; k-- {
			if s[k] != '.' {
				continue
			}
			if m := extAt(s, k+1); m > 0 {
				return s[q : k+1+m], k + 1 + m, true
			}
		}
	}
	return "", 0, false
}

func refMatchSigAction(s string) (word string, ok bool) {
	for i := 0; i < len(s); i++ {
		n := refVerbAt(s, i, refActionVerbs)
		if n == 0 {
			continue
		}
		q := skipReSpace(s, i+n)
		if q == i+n {
			continue
		}
		if e := endWord(s, q); e > q {
			return s[q:e], true
		}
	}
	return "", false
}

func refAppendNorm(b []byte, s string) []byte {
	s = strings.TrimSpace(s)
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return append(b, strings.ToLower(s)...)
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		b = append(b, c)
	}
	return b
}

// refSigPair[b] has bit x set when a word of sigWords starts with byte
// b, in either ASCII case, and has 'a'+x second (a second byte that is no
// letter may map onto one: the words are checked in full).
var refSigPair = func() (t [256]uint32) {
	for _, w := range sigWords {
		bit := uint32(1) << (w.word[1] - 'a')
		t[w.word[0]] |= bit
		t[w.word[0]-('a'-'A')] |= bit
	}
	return t
}()

// refScanSignature is scanSignature as it was before it read two bytes
// a step (sigPairs), a byte at a time, and before its loop bound proved
// its reads in bounds (i+1 < len(s)).
func refScanSignature(s string, matchError bool) (found uint8, word, loc string) {
	for i := 0; i+1 < len(s); i++ {
		if refSigPair[s[i]]>>((s[i+1]|0x20-'a')&31)&1 == 0 {
			continue
		}
		for cands := sigFirst[s[i]]; cands != 0; cands &= cands - 1 {
			w := &sigWords[bits.TrailingZeros8(cands)]
			if found&w.bit != 0 || !hasFoldAt(s, i, w.word) {
				continue
			}
			if w.bit == wordError && matchError {
				if word, loc, ok := matchSigError(s, i); ok {
					return found | w.bit, word, loc
				}
			}
			if found |= w.bit; found == allWords {
				return found, "", ""
			}
		}
	}
	return found, "", ""
}

// FuzzSignatureRef holds matchSigFile, matchSigAction, appendNorm and
// scanSignature to the references above.
func FuzzSignatureRef(f *testing.F) {
	for _, s := range []string{
		"Fixed auth.ts - updated validation", "MODIFIED  src/a.go CHANGED x", "modified\n\tx.py uPdAtEd\u212a y",
		"fixed", "f", "addeD removed_x", "  Run_Tests ./Pkg  ", "chan ged modif fix.py", "Ünïcode ACTION",
		"\xffFIXED a.js added \xc5\xbf", "Error: x at y", "3 tests FAILED: a: b", "e", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		file, end, ok := matchSigFile(s)
		rfile, rend, rok := refMatchSigFile(s)
		if file != rfile || end != rend || ok != rok {
			t.Fatalf("matchSigFile(%q) = %q %d %v, reference %q %d %v", s, file, end, ok, rfile, rend, rok)
		}
		word, ok := matchSigAction(s)
		rword, rok := refMatchSigAction(s)
		if word != rword || ok != rok {
			t.Fatalf("matchSigAction(%q) = %q %v, reference %q %v", s, word, ok, rword, rok)
		}
		if got, want := string(appendNorm([]byte("x|"), s)), string(refAppendNorm([]byte("x|"), s)); got != want {
			t.Fatalf("appendNorm(%q) = %q, reference %q", s, got, want)
		}
		for _, me := range []bool{false, true} {
			f, w, l := scanSignature(s, me)
			rf, rw, rl := refScanSignature(s, me)
			if f != rf || w != rw || l != rl {
				t.Fatalf("scanSignature(%q, %v) = %b %q %q, reference %b %q %q", s, me, f, w, l, rf, rw, rl)
			}
		}
	})
}

// refMatchSigError is matchSigError as it was before its search for
// "err" (it searched for an e alone).
func refMatchSigError(s string, from int) (word, loc string, ok bool) {
	for i := from; i+5 <= len(s); i++ {
		if i+8 <= len(s) {
			x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
				uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
			y := (x | 0x2020202020202020) ^ 0x6565656565656565
			m := (y - 0x0101010101010101) &^ y & 0x8080808080808080
			if m == 0 {
				i += 7
				continue
			}
			i += bits.TrailingZeros64(m) / 8
			if i+5 > len(s) {
				break
			}
		}
		if s[i]|0x20 != 'e' || s[i+1]|0x20 != 'r' || foldLen(s, i, "error") == 0 {
			continue
		}
		p := i + 5
		if p < len(s) && s[p] == ':' {
			p++
		}
		p = skipReSpace(s, p)
		q := endWord(s, p)
		if q == p {
			continue
		}
		for t := q; t+1 < len(s) && s[t] != '\n'; t++ {
			if s[t]|0x20 == 'a' && foldLen(s, t, "at") > 0 {
				if u := skipReSpace(s, t+2); u < len(s) {
					return s[p:q], s[u:endNonSpace(s, u)], true
				}
			}
		}
		for t := q - 2; t > p; t-- {
			if s[t]|0x20 == 'a' && foldLen(s, t, "at") > 0 {
				if u := skipReSpace(s, t+2); u < len(s) {
					return s[p:t], s[u:endNonSpace(s, u)], true
				}
			}
		}
	}
	return "", "", false
}

// FuzzMatchSigErrorRef holds matchSigError to refMatchSigError from
// every offset.
func FuzzMatchSigErrorRef(f *testing.F) {
	for _, s := range []string{
		"Error: TypeError - Cannot read property 'id' of null at auth.ts:45", "xxERRORxx ErRoR: x at y", "eeeeeeeeerrrrrrror a at b",
		"error", "errorerrorerror at", "the error state\nerror: x\tAT  loc", "er\u212aror eRR0R: k at \xc5\xbf",
		"0123456789err or error:w at l",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for from := 0; from <= len(s) && from < 24; from++ {
			w, l, ok := matchSigError(s, from)
			rw, rl, rok := refMatchSigError(s, from)
			if w != rw || l != rl || ok != rok {
				t.Fatalf("matchSigError(%q, %d) = %q %q %v, reference %q %q %v", s, from, w, l, ok, rw, rl, rok)
			}
		}
	})
}

// TestAppendNormWords holds appendNorm, which lowers eight bytes at a
// time, to the reference byte by byte: every ASCII byte at every place of
// a word and of the tail, next to letters and to the bytes around 'A'
// and 'Z', and a byte that is not ASCII in a word or in the tail after
// words lowered (the whole is then lowered by strings.ToLower).
func TestAppendNormWords(t *testing.T) {
	check := func(s string) {
		t.Helper()
		if got, want := string(appendNorm([]byte("x|"), s)), string(refAppendNorm([]byte("x|"), s)); got != want {
			t.Fatalf("appendNorm(%q) = %q, reference %q", s, got, want)
		}
	}
	fills := []string{"ABCDEFGHIJKLMNOPQRSTUVWXYZ", "@[`{@Z[A`a{z", "aZ\x00\x7f"}
	for n := range 27 {
		for _, fill := range fills {
			base := []byte(strings.Repeat(fill, 10)[:n])
			for i := range base {
				for c := range 256 {
					s := slices.Clone(base)
					s[i] = byte(c)
					check("Q" + string(s) + "Z")
				}
			}
		}
	}
	check("RUN_TESTS ./Pkg --VERBOSE Ünïcode")
	check("RUN_TESTS ./Pkg --VERBOSE \u212a")
	check("  Run_Tests ./Pkg/ABCDEFGH  ")
}

// BenchmarkAppendNorm normalizes an agent's action, a command and a long
// one (a file's text), as signature_repeat does at every step.
func BenchmarkAppendNorm(b *testing.B) {
	text := strings.Repeat("cd /workspace && python -m pytest tests/test_Auth.py -k Login -x; ", 16)
	for _, n := range []int{40, 1024} {
		s := text[:n]
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			buf := make([]byte, 0, 2048)
			b.SetBytes(int64(n))
			for b.Loop() {
				buf = appendNorm(buf[:0], s)
			}
		})
	}
}

// TestScanSignaturePairs holds scanSignature, which reads the pairs at
// even indexes, to the byte-by-byte reference: each word in each ASCII
// case of its letters at the first four indexes and at the end of
// strings of odd and even lengths, and random strings of the words, their
// pieces (the pairs sigPairs holds), an error's location and other bytes.
func TestScanSignaturePairs(t *testing.T) {
	check := func(s string) {
		t.Helper()
		for _, me := range []bool{false, true} {
			f, w, l := scanSignature(s, me)
			rf, rw, rl := refScanSignature(s, me)
			if f != rf || w != rw || l != rl {
				t.Fatalf("scanSignature(%q, %v) = %b %q %q, reference %b %q %q", s, me, f, w, l, rf, rw, rl)
			}
		}
	}
	for _, w := range sigWords {
		for c := range 1 << len(w.word) {
			b := []byte(w.word)
			for j := range b {
				if c>>j&1 != 0 {
					b[j] -= 'a' - 'A'
				}
			}
			for pre := range 4 {
				s := strings.Repeat("x", pre) + string(b)
				check(s)
				check(s + ": x at y")
				check(s[:len(s)-1])
				check("error " + s + " fail")
			}
		}
	}
	pieces := []string{"error", "ERROR", "Error:", "erro", "rror", "er", "rr", "ro", "fail", "FAIL", "fa", "ai", "il",
		"modified", "mo", "od", "Modif", "changed", "ch", "ha", "CHANGE", "updated", "up", "pd", "UPDATE", "fixed", "fi",
		"ix", "FIXE", "e", "f", "m", "c", "u", "x", " at ", "a.go:3", "\n", " ", "\xff", "é", "0"}
	r := rand.New(rand.NewPCG(6, 24))
	for range 100000 {
		var b strings.Builder
		for range 1 + r.IntN(10) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		check(b.String())
	}
}

// TestAppendFallbackBytes holds appendFallback, which writes eight bytes
// at a time or a byte as its table has it, to fallbackSignature: every
// byte at every place of the first fallbackLen and past them, after a
// space and after a letter, two bytes of white space and letters at
// every two places (a space after a space across two words), and random
// strings of white space, letters and other bytes, appended after a
// signature's head.
func TestAppendFallbackBytes(t *testing.T) {
	check := func(s string) {
		t.Helper()
		if got, want := string(appendFallback([]byte("x|"), s)), "x|"+fallbackSignature(s); got != want {
			t.Fatalf("appendFallback(%q) = %q, want %q", s, got, want)
		}
	}
	for n := range fallbackLen + 3 {
		for _, fill := range fallbackFills {
			base := []byte(strings.Repeat(fill, fallbackLen)[:n+1])
			for c := range 256 {
				s := slices.Clone(base)
				s[n] = byte(c)
				check(string(s))
				check(string(s) + "Zz ")
			}
		}
	}
	fallbackPairs(func(s, _ string) { check(s) })
	pieces := []string{" ", "  ", "\t", "\n", "\v\f\r", "\x1c", "\x85", "\u00a0", "\u2028", "é", "\xff", "A", "Word", "x", "-", "_", "0"}
	r := rand.New(rand.NewPCG(5, 24))
	for range 20000 {
		var b strings.Builder
		for range r.IntN(40) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		check(b.String())
	}
	check("")
}

// TestFallbackDiffers holds fallbackDiffers, which reads eight bytes at
// a time, to fallbackSignature: it must never say that two equal ones
// differ, and must tell every pair apart whose output's first
// fallbackLen bytes are ASCII. Each byte at each place of an output,
// after a space and after a letter, against its neighbours' signatures,
// two bytes of white space and letters at every two places, and random
// outputs of white space, letters and bytes that are not ASCII, in
// pairs.
func TestFallbackDiffers(t *testing.T) {
	check := func(f, s string) {
		t.Helper()
		want := fallbackSignature(s) != f
		got := fallbackDiffers([]byte(f), s)
		ascii := true
		for i := range min(len(s), fallbackLen) {
			ascii = ascii && s[i] < utf8.RuneSelf
		}
		if got && !want || ascii && got != want {
			t.Fatalf("fallbackDiffers(%q, %q) = %v, signature %q", f, s, got, fallbackSignature(s))
		}
	}
	for n := range fallbackLen + 3 {
		for _, fill := range fallbackFills {
			base := []byte(strings.Repeat(fill, fallbackLen)[:n+1])
			f := fallbackSignature(string(base))
			for c := range 256 {
				s := slices.Clone(base)
				s[n] = byte(c)
				check(f, string(s))
				check(f, string(s)+"Zz ")
				check(f, string(s[:n]))
				check(fallbackSignature(string(s)), string(base))
			}
		}
	}
	fallbackPairs(func(s, base string) { check(fallbackSignature(base), s); check(fallbackSignature(s), base) })
	pieces := []string{" ", "  ", "\t", "\n", "\v\f\r", "\x1c", "\x85", "\u00a0", "\u2028", "é", "É", "\xff", "\u212a", "k", "K", "A", "a", "Word", "WORD", "x", "-", "_", "0"}
	r := rand.New(rand.NewPCG(11, 24))
	gen := func() string {
		var b strings.Builder
		for range r.IntN(40) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		return b.String()
	}
	for range 50000 {
		s, u := gen(), gen()
		if r.IntN(2) == 0 {
			u = s[:r.IntN(len(s)+1)] + u // a common prefix
		}
		check(fallbackSignature(u), s)
		check(fallbackSignature(s), s)
	}
	check("", "")
	check("-", " ")
	check("", " ")
}

// fallbackFills are the texts the fallback tests change a byte of: runs
// of letters, of white space, of both, and the bytes around the letters'.
var fallbackFills = []string{"aB", "A ", " \t", "\n\r\v\f", "ab-", "Word\tw", "ZZ@[`{-\x00\x7f"}

// fallbackPairs calls f with texts of fallbackLen+2 letters in which two
// places, each pair of them, hold white space or letters, and the text
// they were made from.
func fallbackPairs(f func(s, base string)) {
	bs := []byte{' ', '\t', '\r', '\x0e', '\x08', 'a', 'Z', '-'}
	for _, fill := range []string{"aBcDeFgH", "a b c d "} {
		base := strings.Repeat(fill, fallbackLen)[:fallbackLen+2]
		for i := range len(base) {
			for j := i + 1; j < len(base); j++ {
				for _, x := range bs {
					for _, y := range bs {
						s := []byte(base)
						s[i], s[j] = x, y
						f(string(s), base)
					}
				}
			}
		}
	}
}

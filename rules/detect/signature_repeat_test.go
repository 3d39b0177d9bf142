package detect

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestActionsDiffer holds actionsDiffer to norm: it must never say that
// actions of the same norm(action) differ. Pairs of actions made of
// letters in either case, white space inside, at the start and at the
// end (ASCII and not: U+00A0, U+2028), the Kelvin sign (whose lower case
// is an ASCII k), other bytes that are not ASCII, '|' and the bytes
// around the letters'; every pair of a list and random pairs, each
// against itself changed at one place.
func TestActionsDiffer(t *testing.T) {
	check := func(a, b string) {
		t.Helper()
		if actionsDiffer(a, b) && norm(a) == norm(b) {
			t.Fatalf("actionsDiffer(%q, %q), norms %q", a, b, norm(a))
		}
		if actionsDiffer(b, a) && norm(a) == norm(b) {
			t.Fatalf("actionsDiffer(%q, %q), norms %q", b, a, norm(a))
		}
	}
	list := []string{"", " ", "a", "A", "ab", "aB", "a ", "a\t", " a", "a b", "a\tb", "a  b", "A B ", "ab\u00a0", "a\u00a0",
		"k", "K", "\u212a", "a\u212a", "ak", "aK", "é", "É", "aé", "aÉ", "\xff", "a\xff", "a|b", "A|B", "a|", "@", "`", "[", "{",
		"run_tests", "RUN_TESTS", "run_tests ", " run_tests", "run_tests\n", "run_tests\u2028", "run_test", "run_testS"}
	for _, a := range list {
		for _, b := range list {
			check(a, b)
		}
	}
	pieces := []string{" ", "\t", "\n", "\u00a0", "\u2028", "\u0085", "a", "A", "k", "K", "\u212a", "é", "É", "İ", "i", "\xff", "|", "@", "`", "z", "Z", "_"}
	r := rand.New(rand.NewPCG(13, 24))
	for range 200000 {
		var b strings.Builder
		for range r.IntN(8) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		a := b.String()
		check(a, strings.ToUpper(a))
		check(a, strings.TrimSpace(a))
		if len(a) > 0 {
			i := r.IntN(len(a))
			check(a, a[:i]+pieces[r.IntN(len(pieces))]+a[i+1:])
			check(a, a[:i])
			check(a, a[:i]+pieces[r.IntN(len(pieces))])
		}
	}
}

// TestSignatureRepeatActions: steps whose actions differ by case, by
// white space at their ends or inside, by a '|' or by a byte that is not
// ASCII, told apart by actionsDiffer or by their norm(action), fire as a
// detector that makes every signature afresh would.
func TestSignatureRepeatActions(t *testing.T) {
	actions := []string{"run_tests", "RUN_TESTS", "run_tests ", " run_tests", "run_tests\u00a0", "run tests", "run\ttests", "run_test",
		"run_tests|x", "run_tests|", "run_tests|X", "\u212a", "k", "K", "", " ", "a|b", "a", "x"}
	outputs := []string{"ok", "b|ok", "|x", "x", "Error: x at y", "ERROR:X-Y", "", "b"}
	r := rand.New(rand.NewPCG(15, 16))
	checkSignatureRepeatRandom(t, r, actions, outputs)
	// "a|b" and "x" make the signature of "a" and "b|x": a step's '|',
	// once taken from the step before of the same action, tells.
	checkSignatureRepeatRandom(t, r, []string{"a|b", "a", "A|B "}, []string{"x", "b|x", "y", "b|X"})
}

// TestErrorDiffers holds errorDiffers to OutputSignature: it must never
// say that an output whose signature is f has another. f the signature of
// a list of outputs and of random ones (errors whose word or location
// differ, holds a '-' or is missing, fallbacks that read as errors:
// "ERROR:X-A-B" and "Error: x at a-b" have one), each against each.
func TestErrorDiffers(t *testing.T) {
	check := func(f, u string) {
		t.Helper()
		if errorDiffers([]byte(f), u) && OutputSignature(u) == f {
			t.Fatalf("errorDiffers(%q, %q), the output's signature", f, u)
		}
	}
	list := []string{"Error: TypeError at auth.ts:45", "Error: TypeError at auth.ts:46", "Error: RangeError at auth.ts:45",
		"ERROR:TYPEERROR-AUTH.TS:45", "error:TypeError-auth.ts:45", "Error: x at a-b", "ERROR:X-A-B", "error:x-a-b", "error:x-",
		"error:x", "Error: x", "x Error: x at y", "Error: x at y\nError: z at w", "Error: data.ts", "Error: dat", "error:-x", "error:",
		"Error: \u212a at \xc5\xbf", "Error: K at s", "3 tests failed", "plain", ""}
	for _, s := range list {
		for _, u := range list {
			check(OutputSignature(s), u)
		}
	}
	pieces := []string{"Error", "error", "ERROR", ":", " ", "\n", "at", "AT", " at ", "x", "X", "y", "-", "a-b", "auth.ts:45", "TypeError", "_", "\u212a", "k", "é"}
	r := rand.New(rand.NewPCG(17, 24))
	gen := func() string {
		var b strings.Builder
		for range r.IntN(10) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		return b.String()
	}
	for range 100000 {
		s, u := gen(), gen()
		f := OutputSignature(s)
		check(f, u)
		check(f, s)
		check(f, strings.ToUpper(s))
	}
}

// TestJoinedEqual holds joinedEqual to the joined strings: parts of
// letters and '|' of every length up to 3, each pair against each.
func TestJoinedEqual(t *testing.T) {
	var parts []string
	var grow func(s string)
	grow = func(s string) {
		parts = append(parts, s)
		if len(s) < 3 {
			for _, c := range []string{"a", "b", "|"} {
				grow(s + c)
			}
		}
	}
	grow("")
	for _, x1 := range parts {
		for _, x2 := range parts {
			x := x1 + "|" + x2
			for _, y1 := range parts {
				for _, y2 := range parts {
					if got, want := joinedEqual([]byte(x1), []byte(x2), []byte(y1), []byte(y2)), x == y1+"|"+y2; got != want {
						t.Fatalf("joinedEqual(%q, %q, %q, %q) = %v", x1, x2, y1, y2, got)
					}
				}
			}
		}
	}
}

// actionsDifferBytes is actionsDiffer as it was, a byte at a time from
// the first: TestActionsDifferWords holds the word skip to it.
func actionsDifferBytes(a, b string) bool {
	if len(a) > 0 && fallbackByte[a[0]] >= 1<<8 || len(b) > 0 && fallbackByte[b[0]] >= 1<<8 {
		return false
	}
	for k := 0; ; k++ {
		if k == len(a) || k == len(b) {
			if len(a) == len(b) {
				return false
			}
			c := a[k:]
			if k == len(a) {
				c = b[k:]
			}
			return fallbackByte[c[0]] < 1<<8
		}
		x, y := fallbackByte[a[k]], fallbackByte[b[k]]
		if x >= fallbackNotASCII || y >= fallbackNotASCII {
			return false
		}
		if x != y {
			return true
		}
	}
}

// TestActionsDifferWords holds actionsDiffer's common prefix, passed
// eight bytes at a time, to the byte loop: pairs that share a prefix of
// 0 to 40 bytes (ASCII, or with a byte that is not ASCII or white space
// in it), then differ, or one ends, at each place of a word.
func TestActionsDifferWords(t *testing.T) {
	pieces := []string{" ", "\t", "\n", "\u00a0", "é", "\xff", "a", "A", "k", "K", "\u212a", "|", "{", "\"", "z", "Z", "_", "0"}
	r := rand.New(rand.NewPCG(14, 24))
	for range 300000 {
		var p strings.Builder
		for p.Len() < r.IntN(41) {
			if r.IntN(6) == 0 {
				p.WriteString(pieces[r.IntN(len(pieces))])
			} else {
				p.WriteByte(byte('a' + r.IntN(26)))
			}
		}
		prefix := p.String()
		tail := func() string {
			var b strings.Builder
			for range r.IntN(12) {
				b.WriteString(pieces[r.IntN(len(pieces))])
			}
			return b.String()
		}
		a, b := prefix+tail(), prefix+tail()
		for _, q := range [][2]string{{a, b}, {b, a}, {a, a}, {a, strings.ToUpper(a)}, {prefix, a}, {a, prefix}} {
			if got, want := actionsDiffer(q[0], q[1]), actionsDifferBytes(q[0], q[1]); got != want {
				t.Fatalf("actionsDiffer(%q, %q) = %v, the byte loop %v", q[0], q[1], got, want)
			}
		}
	}
}

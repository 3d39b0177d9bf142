package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestStepGuess holds flatLine's guessed step number (stepPaths.stepNext)
// to the general reading: a line of step n read after lines of the steps
// before (the guess n, made by after at a miss and moved on in line or
// by carry at each hit), with every number of digits and every carry,
// and lines whose number differs from the guess in any byte or is
// followed by a blank, a digit, a fraction or an exponent. Each is
// checked by checkFlatLineAfter (the fields, their bytes and the step
// read), read by flatLine when valid, and the guess taken where the
// line's bytes are the guess's.
func TestStepGuess(t *testing.T) {
	line := func(step, tail string) []byte {
		return []byte(`{"step": ` + step + tail + ` "action": "ls", "output": "ok", "location": "a"}`)
	}
	hits := 0
	for _, n := range []uint64{1, 2, 8, 9, 10, 11, 19, 20, 99, 100, 101, 109, 199, 999, 1000, 12399, 99999, 999999, 1000000, 1999999, 9999998, 9999999, 10000000, 10000001, 99999999, 123456789} {
		var before [][]byte
		for k := uint64(3); k >= 1; k-- {
			if n >= k {
				before = append(before, line(strconv.FormatUint(n-k, 10), ","))
			}
		}
		s := strconv.FormatUint(n, 10)
		cases := []string{s + ",", s + " ,", s + "0,", s + ".5,", s + "e1,", s + "E1,", "-" + s + ",", s + "1,"}
		for i := range len(s) + 1 {
			for _, c := range []byte("09,. ") {
				if i < len(s) && c == s[i] || i == len(s) && c == ',' {
					continue
				}
				v := []byte(s + ",")
				v[i] = c
				cases = append(cases, string(v))
			}
		}
		for _, c := range cases {
			l := line(c[:len(c)-1], c[len(c)-1:])
			if c[len(c)-1] != ',' {
				l = line(c, "")
			}
			// A valid line is read by flatLine, guessed or not (but
			// for two blanks before the number, which it leaves): a
			// guess that passes a number's first digits only leaves
			// its line to the general reading.
			if read := checkFlatLineAfter(t, before, l, nil); !read && json.Valid(l) && !strings.Contains(c, " ") {
				t.Errorf("%s after %d lines: not read", l, len(before))
			}
		}
		// The guess is taken: the step read from it, told by numAt.
		p := newStepPaths(nil)
		for _, b := range before {
			var vals [numStepFields]rawValue
			p.flatLine(append(bytes.Clone(b), '\n'), &vals, nil)
			p.numAt = [2]uintptr{}
		}
		guessed := p.stepNext.w != 0 && p.stepNext.d == n
		var vals [numStepFields]rawValue
		l := append(line(s, ","), '\n')
		if p.flatLine(l, &vals, nil) < 0 {
			t.Fatalf("%s: not read", l)
		}
		if want := n < 10_000_000; guessed != want {
			t.Errorf("step %d after %d: guessed %v (%+v)", n, n-1, guessed, p.stepNext)
		}
		if guessed {
			hits++
			if p.num[0] != n || p.numAt[0] != addrAt(l, len(`{"step": `)) {
				t.Errorf("step %d: guess read as %d", n, p.num[0])
			}
		}
	}
	if hits < 15 {
		t.Errorf("%d guesses taken: the guess is not made", hits)
	}
}

// TestStepGuessCarry: the guess after each number, made by after from
// its digits and moved on by carry, is the next number's digits and
// comma, under a mask of them.
func TestStepGuessCarry(t *testing.T) {
	for _, d := range []uint64{0, 1, 8, 9, 10, 19, 99, 100, 109, 199, 909, 999, 1099, 99999, 999999, 1000000, 9999998, 9999999} {
		s := strconv.FormatUint(d, 10)
		b := []byte(s + "xxxxxxxx")
		var g stepGuess
		g.after(wordAt(b, 0), len(s), d)
		for step := range 3 {
			next := d + uint64(step) + 1
			want := strconv.FormatUint(next, 10) + ","
			if len(want) > 8 {
				if g.w != 0 || g.m != ^uint64(0) {
					t.Errorf("after %d: a guess of %d digits: %+v", d, len(want)-1, g)
				}
				break
			}
			var w [8]byte
			copy(w[:], want)
			if got := fmt.Sprintf("%x/%x", g.w, g.m); g.d != next || int(g.k) != len(want)-1 || g.w != wordAt(w[:], 0)&g.m || g.m != 1<<(8*len(want))-1 {
				t.Fatalf("after %d, step %d: guess %s d %d k %d, want %q", d, step, got, g.d, g.k, want)
			}
			if g.w&g.last != g.nine {
				g.w += g.unit
				g.d++
			} else {
				g.carry()
			}
		}
	}
}

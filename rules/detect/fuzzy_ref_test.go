package detect

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// refFuzzy is FuzzyRepeat.Check as it was before it held outputs as
// strings (each decoded into code points as it came, compared and
// counted as code points): the reference TestFuzzyRepeatRef and
// FuzzFuzzyRepeatRef hold Check to.
type refFuzzy struct {
	d    *FuzzyRepeat // for need and the window
	prev []refFuzzyEntry
	mt   lcsMatcher
}

type refFuzzyEntry struct {
	n     int
	runes []rune
}

func newRefFuzzy(t testing.TB, c FuzzyConfig) *refFuzzy {
	d, err := NewFuzzyRepeat(c)
	if err != nil {
		t.Fatal(err)
	}
	return &refFuzzy{d: d}
}

func (r *refFuzzy) Check(s Step) (FuzzyFiring, bool) {
	if s.Output == "" {
		return FuzzyFiring{}, false
	}
	cur := refFuzzyEntry{n: s.N, runes: []rune(s.Output)}
	found, best := false, 0
	var bestNum, bestDen int64
	for i := len(r.prev) - 1; i >= 0; i-- {
		if p := r.prev[i]; slices.Equal(p.runes, cur.runes) {
			found, best, bestNum, bestDen = true, p.n, 2*int64(len(p.runes)), 2*int64(len(p.runes))
			break
		}
	}
	exact := found
	var hc, hp histogram
	for i := len(r.prev) - 1; i >= 0 && !exact; i-- {
		p := r.prev[i]
		total := len(cur.runes) + len(p.runes)
		cutoff := r.d.need(total)
		if found {
			cutoff = max(cutoff, int(bestNum*int64(total)/(2*bestDen))+1)
		}
		if cutoff > min(len(cur.runes), len(p.runes)) {
			continue
		}
		hc.set(cur.runes)
		hp.set(p.runes)
		shared := hc.bound(&hp)
		if cutoff > shared {
			continue
		}
		if l, ok := r.mt.lcsShared(cur.runes, p.runes, cutoff, shared); ok {
			found, best, bestNum, bestDen = true, p.n, 2*int64(l), int64(total)
		}
	}
	if !found {
		if len(r.prev) == r.d.window {
			r.prev = r.prev[1:]
		}
		r.prev = append(r.prev, cur)
		return FuzzyFiring{}, false
	}
	return FuzzyFiring{
		Firing:      Firing{Step: s.N, Rule: "fuzzy_repeat", Kind: KindLoop, Origin: OriginGeneric},
		MatchedStep: best,
		Similarity:  round4(bestNum, bestDen),
	}, true
}

// fuzzyPieces are the texts fuzzy_repeat's reference tests build outputs
// of: ASCII, other code points, U+FFFD written out, and invalid UTF-8
// (a lone continuation byte, a surrogate's encoding, a cut sequence)
// that decodes to U+FFFD, so that outputs of different bytes can have
// the same code points.
var fuzzyPieces = []string{"a", "b", "c", " ", "\n", "é", "€", "\uFFFD", "\xff", "\xed\xa0\x80", "\xe2\x82", "\x80", "𝄞"}

// checkFuzzyRef steps a FuzzyRepeat (reset a third of the way, Ralph's
// SafetyGuard.reset, and released and reused half way, as the rules
// reuse it) and the reference over outs and fails at the first firing
// they differ on.
func checkFuzzyRef(t *testing.T, c FuzzyConfig, outs []string) {
	t.Helper()
	d, err := NewFuzzyRepeat(c)
	if err != nil {
		t.Fatal(err)
	}
	ref := newRefFuzzy(t, c)
	for i, o := range outs {
		switch i {
		case len(outs) / 3:
			d.Reset()
			ref = newRefFuzzy(t, c)
		case len(outs) / 2:
			d.Release()
			ref = newRefFuzzy(t, c)
		}
		got, gok := d.Check(&Step{N: i + 1, Output: o})
		want, wok := ref.Check(Step{N: i + 1, Output: o})
		if gok != wok || got != want {
			t.Fatalf("step %d (%q): Check = %+v %v, reference %+v %v", i+1, o, got, gok, want, wok)
		}
	}
}

// TestFuzzyRepeatRef holds Check to the reference over random traces of
// near-duplicates, exact repeats (the output before as it is, and
// later), repeats of other bytes with the same code points, and new
// texts, of lengths around histogram.setString's boundary and the LCS's
// words.
//
// A quarter of the traces are of ASCII pieces only (compared over their
// bytes: lcsBytes), and half of those with invalid single bytes too,
// which count as one code point each as an ASCII byte does but are
// U+FFFD, not their byte: they must not be compared over their bytes.
func TestFuzzyRepeatRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 7))
	pieces := fuzzyPieces
	text := func(n int) []string {
		ps := make([]string, n)
		for i := range ps {
			ps[i] = pieces[rng.IntN(len(pieces))]
		}
		return ps
	}
	for trace := range 600 {
		pieces = [][]string{fuzzyPieces, fuzzyPieces, fuzzyPieces, {"a", "b", "c", " ", "\n"}, fuzzyPieces, fuzzyPieces, fuzzyPieces, {"a", "b", " ", "\xff", "\x80", "\xfe"}}[trace%8]
		c := DefaultFuzzyConfig()
		c.Window = 1 + rng.IntN(6)
		c.Threshold = []float64{0.9, 0.75, 0.5, 1, 0}[trace%5]
		base := text(rng.IntN(200))
		var outs []string
		for range 16 {
			if len(outs) > 0 && rng.IntN(6) == 0 {
				// The output before as it is: a loop's output repeated,
				// fired or kept.
				outs = append(outs, outs[len(outs)-1])
				continue
			}
			ps := slices.Clone(base)
			switch rng.IntN(5) {
			case 0:
				ps = text(rng.IntN(200))
			case 1: // the same code points, maybe of other bytes
				for i, p := range ps {
					if p == "\xff" || p == "\x80" || p == "\uFFFD" {
						ps[i] = []string{"\xff", "\x80", "\uFFFD", "\xed\xa0\x80"}[rng.IntN(4)]
					}
				}
			default:
				for range rng.IntN(12) {
					k := rng.IntN(len(ps) + 1)
					switch rng.IntN(3) {
					case 0:
						ps = slices.Insert(ps, k, pieces[rng.IntN(len(pieces))])
					case 1:
						if k < len(ps) {
							ps = slices.Delete(ps, k, k+1)
						}
					default:
						if k < len(ps) {
							ps[k] = pieces[rng.IntN(len(pieces))]
						}
					}
				}
			}
			if rng.IntN(4) == 0 {
				base = ps
			}
			outs = append(outs, strings.Join(ps, ""))
		}
		checkFuzzyRef(t, c, outs)
	}
}

// FuzzFuzzyRepeatRef is TestFuzzyRepeatRef over any trace: the outputs
// are data cut at each '|', "=" repeating the previous output with its
// invalid bytes written as U+FFFD.
func FuzzFuzzyRepeatRef(f *testing.F) {
	f.Add("kitten|sitting|kitten|=|sitten", uint8(5), uint8(90))
	f.Add("ab\xffc|ab\x80c|ab\uFFFDc|=|ab\xed\xa0\x80c", uint8(2), uint8(100))
	f.Add(strings.Repeat("Error: héllo\xff at auth.ts:45 ", 4)+"|"+strings.Repeat("Error: hallo\xfe at auth.ts:46 ", 4), uint8(5), uint8(90))
	f.Fuzz(func(t *testing.T, data string, window, pct uint8) {
		c := FuzzyConfig{Window: 1 + int(window)%50, Threshold: float64(pct%101) / 100}
		outs := strings.Split(data, "|")
		for i, o := range outs {
			if o == "=" && i > 0 {
				outs[i] = strings.ToValidUTF8(outs[i-1], "\uFFFD")
			}
		}
		checkFuzzyRef(t, c, outs)
	})
}

// FuzzHistogramSetString holds setString to set over the text's code
// points, as ranging over it reads them.
func FuzzHistogramSetString(f *testing.F) {
	f.Add("kitten")
	f.Add(strings.Repeat("Error: héllo\xff at auth.ts:45 \xed\xa0\x80\xe2\x82", 4))
	var h, o histogram
	f.Fuzz(func(t *testing.T, s string) {
		h.setString(s)
		o.set([]rune(s))
		if h.ascii != o.ascii {
			t.Fatalf("setString(%q): ASCII counts %v, set's %v", s, h.ascii, o.ascii)
		}
		hp, op := slices.Clone(h.present), slices.Clone(o.present)
		slices.Sort(hp)
		slices.Sort(op)
		if !slices.Equal(hp, op) {
			t.Fatalf("setString(%q): present %v, set's %v", s, hp, op)
		}
		for r, n := range o.other {
			if n != 0 && h.other[r] != n {
				t.Fatalf("setString(%q): %q counted %d, set %d", s, r, h.other[r], n)
			}
		}
		for r, n := range h.other {
			if n != 0 && o.other[r] != n {
				t.Fatalf("setString(%q): %q counted %d, set %d", s, r, n, o.other[r])
			}
		}
	})
}

// FuzzCountRunes holds countRunes to ranging over the string and to
// utf8.ValidString.
func FuzzCountRunes(f *testing.F) {
	for _, s := range []string{"", "abc", "0123456789abcdefgh", "héllo wörld, 12345678", "\xff\xfe12345678\xed\xa0\x80abcdefgh€", "abcdefg\xe2\x82", "\uFFFD"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := 0
		for range s {
			want++
		}
		n, valid := countRunes(s)
		if n != want || valid != (strings.ToValidUTF8(s, "x") == s) {
			t.Fatalf("countRunes(%q) = %d %v, want %d %v", s, n, valid, want, !valid)
		}
	})
}

// TestCountRunesEveryPlace holds countRunes to ranging over the string
// and to utf8.ValidString for ASCII texts of every length up to 80 (its
// 32- and 8-byte steps and the 8 bytes ending a text) with a code point
// of two or three bytes, an invalid byte or a cut sequence at every
// place.
func TestCountRunesEveryPlace(t *testing.T) {
	countRunesEveryPlace(t, 0, 80)
}

// countRunesEveryPlace checks countRunes against ranging over the text,
// and its validity against utf8.ValidString, for ASCII texts of from to
// to bytes with each insertion at every place.
func countRunesEveryPlace(t *testing.T, from, to int) {
	t.Helper()
	for n := from; n <= to; n++ {
		ascii := strings.Repeat("abcdefghij", to/10+1)[:n]
		check := func(s string) {
			want := 0
			for range s {
				want++
			}
			if got, valid := countRunes(s); got != want || valid != utf8.ValidString(s) {
				t.Fatalf("countRunes(%q) = %d %v, want %d %v", s, got, valid, want, utf8.ValidString(s))
			}
		}
		check(ascii)
		for i := range n + 1 {
			for _, ins := range []string{"é", "€", "\xff", "\xe2\x82"} {
				check(ascii[:i] + ins + ascii[i:])
			}
		}
	}
}

// TestNestedAsLCS holds nested, on bytes, to the code points: it is true
// exactly when lcsShared's common prefix and suffix leave nothing of the
// shorter text, whose code points are then the LCS (the naive table's).
func TestNestedAsLCS(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 11))
	pieces := []string{"a", "b", "é", "è", "©", "ü", "∑", "€", "𝄞", "😀", " ", "\n", "ab", "éa"} // é and © end alike
	text := func(n int) []string {
		ps := make([]string, n)
		for i := range ps {
			ps[i] = pieces[rng.IntN(len(pieces))]
		}
		return ps
	}
	isNested := 0
	for range 20000 {
		ps := text(rng.IntN(12))
		qs := slices.Clone(ps)
		for range 1 + rng.IntN(2) {
			k := rng.IntN(len(qs) + 1)
			switch rng.IntN(3) {
			case 0:
				qs = slices.Insert(qs, k, text(1+rng.IntN(3))...)
			case 1:
				if k < len(qs) {
					qs = slices.Delete(qs, k, min(len(qs), k+1+rng.IntN(3)))
				}
			default:
				if k < len(qs) {
					qs[k] = pieces[rng.IntN(len(pieces))]
				}
			}
		}
		a, b := strings.Join(ps, ""), strings.Join(qs, "")
		ra, rb := []rune(a), []rune(b)
		// lcsShared's cut, over the code points.
		p := 0
		for p < len(ra) && p < len(rb) && ra[p] == rb[p] {
			p++
		}
		s := 0
		for s < len(ra)-p && s < len(rb)-p && ra[len(ra)-1-s] == rb[len(rb)-1-s] {
			s++
		}
		want := p+s == len(ra) || p+s == len(rb)
		if got := nested(a, b); got != want {
			t.Fatalf("nested(%q, %q) = %v, the code points' cut says %v", a, b, got, want)
		}
		if got := nested(b, a); got != want {
			t.Fatalf("nested(%q, %q) = %v, not symmetric", b, a, got)
		}
		if want {
			isNested++
			if l := naiveLCS(ra, rb); l != min(len(ra), len(rb)) {
				t.Fatalf("nested %q, %q: LCS %d, not the shorter's %d code points", a, b, l, min(len(ra), len(rb)))
			}
		}
	}
	if isNested < 2000 {
		t.Fatalf("only %d nested pairs of 20000: the test compares too few", isNested)
	}
}

// TestFuzzyRepeatRecurringRef holds Check to the reference over traces
// that draw their outputs from a few near-duplicates, as a loop's
// outputs come back: the same pair of texts reaches the histograms and
// the LCS again and again, with cutoffs that move with the window's best
// match and the threshold; texts of the same length that differ by a
// code point, invalid bytes and other code points (the LCS over code
// points, not bytes), repeats that fire and repeats after the window
// moved on. A memo of LCS results by the pair's bytes (tried, round 8)
// failed it when it compared the texts' lengths only, took a pair below
// one cutoff as below any, or one at least one cutoff as at least any.
func TestFuzzyRepeatRecurringRef(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 8))
	for trace := range 400 {
		pieces := [][]string{fuzzyPieces, {"a", "b", "c", " ", "\n"}}[trace%2]
		base := make([]string, 20+rng.IntN(100))
		for i := range base {
			base[i] = pieces[rng.IntN(len(pieces))]
		}
		pool := make([]string, 2+rng.IntN(5))
		for i := range pool {
			ps := slices.Clone(base)
			for range rng.IntN(1 + len(ps)/6) {
				k := rng.IntN(len(ps))
				switch rng.IntN(4) {
				case 0:
					ps = slices.Insert(ps, k, pieces[rng.IntN(len(pieces))])
				case 1:
					ps = slices.Delete(ps, k, k+1)
				default: // the same length, a code point changed
					ps[k] = pieces[rng.IntN(len(pieces))]
				}
			}
			pool[i] = strings.Join(ps, "")
		}
		c := FuzzyConfig{Window: 1 + rng.IntN(6), Threshold: []float64{0.9, 0.75, 0.5, 0.97, 0.6, 0.8}[trace%6]}
		outs := make([]string, 60)
		for i := range outs {
			outs[i] = pool[rng.IntN(len(pool))]
		}
		checkFuzzyRef(t, c, outs)
	}
}

package detect

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// naiveLCS is the textbook O(n·m) table, the reference for the tests.
func naiveLCS(a, b []rune) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			switch {
			case a[i] == b[j]:
				cur[j+1] = prev[j] + 1
			case prev[j+1] >= cur[j]:
				cur[j+1] = prev[j+1]
			default:
				cur[j+1] = cur[j]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func TestLCSExamples(t *testing.T) {
	tests := []struct {
		a, b string
		lcs  int
		sim  float64
	}{
		{"", "", 0, 1},
		{"abc", "", 0, 0},
		{"abc", "abc", 3, 1},
		{"abcde", "ace", 3, 0.75},
		{"kitten", "sitting", 4, 8.0 / 13},
		{"héllo wörld", "hello world", 9, 18.0 / 22},
		{"日本語テキスト", "日本テキスト語", 6, 12.0 / 14},
		{"ab", "ba", 1, 0.5},
	}
	for _, tt := range tests {
		if got := LCS(tt.a, tt.b); got != tt.lcs {
			t.Errorf("LCS(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.lcs)
		}
		if got := Similarity(tt.a, tt.b); got != tt.sim {
			t.Errorf("Similarity(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.sim)
		}
	}
}

func randomRunes(r *rand.Rand, alphabet []rune, n int) []rune {
	s := make([]rune, n)
	for i := range s {
		s[i] = alphabet[r.IntN(len(alphabet))]
	}
	return s
}

// mutate copies s with k random edits, to get pairs near any cutoff.
func mutate(r *rand.Rand, s, alphabet []rune, k int) []rune {
	out := append([]rune(nil), s...)
	for range k {
		i := r.IntN(len(out) + 1)
		switch r.IntN(3) {
		case 0:
			out = append(out[:i], append([]rune{alphabet[r.IntN(len(alphabet))]}, out[i:]...)...)
		case 1:
			if i < len(out) {
				out = append(out[:i], out[i+1:]...)
			}
		default:
			if i < len(out) {
				out[i] = alphabet[r.IntN(len(alphabet))]
			}
		}
	}
	return out
}

// TestLCSProperty compares the bit-parallel LCS, with and without cutoffs,
// with the naive table on random strings across word boundaries.
func TestLCSProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabets := [][]rune{[]rune("ab"), []rune("abcd"), []rune("aé日\U0001F600 x"), []rune("abcdefghijklmnopqrstuvwxyz .,")}
	var mt lcsMatcher
	defaultShrink := shrinkFrom
	defer func() { shrinkFrom = defaultShrink }()
	for it := range 3000 {
		alpha := alphabets[it%len(alphabets)]
		a := randomRunes(r, alpha, r.IntN(300))
		var b []rune
		if r.IntN(2) == 0 {
			b = randomRunes(r, alpha, r.IntN(300))
		} else {
			b = mutate(r, a, alpha, r.IntN(1+len(a)/4+1))
		}
		want := naiveLCS(a, b)
		if got, ok := mt.lcsAtLeast(a, b, 0); got != want || !ok {
			t.Fatalf("LCS(%q, %q) = %d, %v; want %d", string(a), string(b), got, ok, want)
		}
		// Odd cases narrow the band from 64 code points (bandShrink),
		// with seeds of 2, 4 and 16 code points or none.
		shrinkFrom = []int{defaultShrink, 64}[it%2]
		seedForce = []int{0, 0, 0, 2, 0, 4, 0, 16}[it%8]
		for range 4 {
			c := want + r.IntN(21) - 10
			got, ok := mt.lcsAtLeast(a, b, c)
			checkBytes(t, &mt, a, b, c, got, ok)
			switch {
			case want >= c && (!ok || got != want):
				t.Fatalf("cutoff %d: LCS(%q, %q) = %d, %v; want %d, true", c, string(a), string(b), got, ok, want)
			case want < c && ok:
				t.Fatalf("cutoff %d: LCS(%q, %q) = %d, true; want false (LCS %d)", c, string(a), string(b), got, want)
			}
		}
		shrinkFrom, seedForce = defaultShrink, 0
	}
}

// checkBytes holds lcsBytes, when a and b are ASCII and shorter than
// shrinkFrom, to what lcsAtLeast returned over their code points (got,
// ok), the same computation over the same symbols: the same values.
func checkBytes(t *testing.T, mt *lcsMatcher, a, b []rune, cutoff, got int, ok bool) {
	t.Helper()
	for _, x := range [][]rune{a, b} {
		if len(x) >= shrinkFrom || slices.ContainsFunc(x, func(r rune) bool { return r >= utf8.RuneSelf }) {
			return
		}
	}
	if gb, okb := mt.lcsBytes(string(a), string(b), cutoff, -1); gb != got || okb != ok {
		t.Fatalf("cutoff %d: lcsBytes(%q, %q) = %d, %v; over code points %d, %v", cutoff, string(a), string(b), gb, okb, got, ok)
	}
}

func FuzzLCS(f *testing.F) {
	f.Add("kitten", "sitting")
	f.Add("", "x")
	f.Add("héllo\xff", "hello")
	f.Add("ab", "ba")
	var mt lcsMatcher
	f.Fuzz(func(t *testing.T, a, b string) {
		ra, rb := []rune(a), []rune(b)
		if len(ra) > 400 || len(rb) > 400 {
			return
		}
		want := naiveLCS(ra, rb)
		if got := LCS(a, b); got != want {
			t.Fatalf("LCS(%q, %q) = %d, want %d", a, b, got, want)
		}
		defer func(old int) { shrinkFrom, seedForce = old, 0 }(shrinkFrom)
		// With the band's narrowing too, by code point counts and by seeds.
		for _, v := range [][2]int{{shrinkFrom, 0}, {64, 0}, {64, 3}, {64, 16}} {
			shrinkFrom, seedForce = v[0], v[1]
			for _, c := range []int{want - 1, want, want + 1, (len(ra) + len(rb)) * 9 / 20} {
				got, ok := mt.lcsAtLeast(ra, rb, c)
				if utf8.ValidString(a) && utf8.ValidString(b) {
					checkBytes(t, &mt, ra, rb, c, got, ok)
				}
				if (want >= c) != ok || (ok && got != want) {
					t.Fatalf("shrink from %d, seeds of %d, cutoff %d: LCS(%q, %q) = %d, %v; want %d", v[0], v[1], c, a, b, got, ok, want)
				}
			}
		}
		if s := Similarity(a, b); s < 0 || s > 1 {
			t.Fatalf("Similarity(%q, %q) = %v", a, b, s)
		}
	})
}

// TestLCSLongProperty holds the fast paths of lcsAtLeast (budgets tried
// from small up, the diagonal's budget, the early stop) to the naive table
// on texts long enough to take them: near-duplicates (substitutions only,
// or any edits), shuffled blocks and random text, at cutoffs around the
// LCS and at the 0.90 threshold.
func TestLCSLongProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	alphabets := [][]rune{[]rune("ab"), []rune("abcdefghijklmnopqrstuvwxyz .,\n"), []rune("aé日\U0001F600 x")}
	var mt lcsMatcher
	defaultShrink := shrinkFrom
	defer func() { shrinkFrom, seedForce = defaultShrink, 0 }()
	for it := range 60 {
		alpha := alphabets[it%len(alphabets)]
		a := randomRunes(r, alpha, 600+r.IntN(2500))
		var b []rune
		switch it % 4 {
		case 0: // substitutions only: the diagonal's budget
			b = append([]rune(nil), a...)
			for range r.IntN(len(a)/10 + 1) {
				b[r.IntN(len(b))] = alpha[r.IntN(len(alpha))]
			}
		case 1:
			b = mutate(r, a, alpha, r.IntN(len(a)/5+1))
		case 2: // blocks shuffled
			blocks := [][]rune{}
			for i := 0; i < len(a); i += 100 {
				blocks = append(blocks, a[i:min(i+100, len(a))])
			}
			r.Shuffle(len(blocks), func(i, j int) { blocks[i], blocks[j] = blocks[j], blocks[i] })
			for _, bl := range blocks {
				b = append(b, bl...)
			}
		default:
			b = randomRunes(r, alpha, len(a)+r.IntN(200)-100)
		}
		want := naiveLCS(a, b)
		total := len(a) + len(b)
		cutoffs := []int{0, want - 1, want, want + 1, want + r.IntN(200) - 100, (9*total + 19) / 20}
		// With and without the band's narrowing (bandShrink), by code
		// point counts, by the seeds lcsAtLeast picks, by short seeds and
		// by long ones alone.
		for _, v := range [][2]int{{defaultShrink, 0}, {64, 0}, {64, 4}, {64, 16}} {
			shrinkFrom, seedForce = v[0], v[1]
			for _, c := range cutoffs {
				got, ok := mt.lcsAtLeast(a, b, c)
				checkBytes(t, &mt, a, b, c, got, ok)
				if (want >= c) != ok || (ok && got != want) {
					t.Fatalf("case %d (%d+%d runes), shrink from %d, seeds of %d, cutoff %d: %d, %v; want LCS %d", it, len(a), len(b), v[0], v[1], c, got, ok, want)
				}
			}
		}
	}
}

// suffixIndel is the table of Indel distances of a[i:] and b[j:].
func suffixIndel(a, b []rune) [][]int {
	m, n := len(a), len(b)
	l := make([][]int, m+1)
	for i := range l {
		l[i] = make([]int, n+1)
	}
	for i := m - 1; i >= 0; i-- {
		for j := n - 1; j >= 0; j-- {
			switch {
			case a[i] == b[j]:
				l[i][j] = l[i+1][j+1] + 1
			default:
				l[i][j] = max(l[i+1][j], l[i][j+1])
			}
		}
	}
	for i := range l {
		for j := range l[i] {
			l[i][j] = (m - i) + (n - j) - 2*l[i][j]
		}
	}
	return l
}

// TestSeedBoundAdmissible holds the seed bound to the exact Indel distance
// left from every point, on near-duplicates, repetitive and random texts,
// for seeds of 1 to 16 code points: it must never exceed it. It is also
// held to something: on near-duplicates it must be most of it (code
// point counts give under half).
func TestSeedBoundAdmissible(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	alphabets := [][]rune{[]rune("ab"), []rune("abcdefghijklmnopqrstuvwxyz .,\n"), []rune("aé日\U0001F600 x")}
	var sb seedBound
	tight, near := 0, 0
	for it := range 200 {
		alpha := alphabets[it%len(alphabets)]
		a := randomRunes(r, alpha, r.IntN(160))
		var b []rune
		switch it % 4 {
		case 0: // substitutions only
			b = append([]rune(nil), a...)
			for range r.IntN(len(a)/20 + 1) {
				if len(b) > 0 {
					b[r.IntN(len(b))] = alpha[r.IntN(len(alpha))]
				}
			}
		case 1:
			b = mutate(r, a, alpha, r.IntN(len(a)/8+1))
		case 2: // a period repeated: seeds occur everywhere
			unit := randomRunes(r, alpha, 1+r.IntN(5))
			for len(b) < len(a) {
				b = append(b, unit...)
			}
			a = mutate(r, b, alpha, r.IntN(4))
		default:
			b = randomRunes(r, alpha, r.IntN(160))
		}
		d := suffixIndel(a, b)
		for _, s := range []int{1, 2, 3, 5, 8, 16} {
			sb.build(a, b, s, -len(a)-1, len(b)+1)
			for i := 0; i <= len(a); i++ {
				for j := 0; j <= len(b); j++ {
					h := sb.at(i, j)
					if h > d[i][j] {
						t.Fatalf("case %d, seeds of %d: bound %d at (%d, %d) above the distance %d\na=%q\nb=%q", it, s, h, i, j, d[i][j], string(a), string(b))
					}
					// What bandShrink relies on: a row higher, the bound
					// falls by at most one; a column further, by at most
					// one, and the weights of the seeds it leaves (two at
					// most each) and one.
					for _, k := range []int{1, 33} {
						if i+k <= len(a) && sb.at(i+k, j) < h-k {
							t.Fatalf("case %d, seeds of %d: bound %d at (%d, %d), %d at %d rows higher", it, s, h, i, j, sb.at(i+k, j), k)
						}
						if j+k <= len(b) && sb.at(i, j+k) < h-k-2*(k/s+1)-1 {
							t.Fatalf("case %d, seeds of %d: bound %d at (%d, %d), %d at %d columns further", it, s, h, i, j, sb.at(i, j+k), k)
						}
					}
				}
			}
			if it%4 == 0 && s == 8 && len(a) >= 100 {
				near += d[0][0]
				tight += sb.at(0, 0)
			}
		}
	}
	if near == 0 || 10*tight < 8*near {
		t.Errorf("near-duplicates: the seed bound sums to %d of their distances' %d, want at least 80%%", tight, near)
	}
}

// TestLCSLargeAgainstFull holds lcsAtLeast, with the band narrowing and
// the seeds its policy picks, to the plain full bit-parallel LCS (no band,
// no cutoff; held to the naive table above) on 100 KB log-like texts at
// the distances where each path runs: substitutions 0.5% to 8% apart
// (seeds up to 6%, code point counts past it), edits of every kind,
// shuffled lines. Cutoffs: the LCS itself, one more, one less, and the
// 0.90 threshold.
func TestLCSLargeAgainstFull(t *testing.T) {
	if testing.Short() {
		t.Skip("100 KB texts")
	}
	r := rand.New(rand.NewPCG(15, 16))
	const size = 100_000
	base := []rune(logText(r, size))
	alpha := []rune("abcdefghijklmnopqrstuvwxyz0123456789 ")
	var mt, full lcsMatcher
	for _, tc := range []struct {
		name string
		b    []rune
	}{
		{"0.5% substituted", substitute(r, base, alpha, size/200)},
		{"3% substituted", substitute(r, base, alpha, 3*size/100)},
		{"5% substituted", substitute(r, base, alpha, 5*size/100)},
		{"8% substituted", substitute(r, base, alpha, 8*size/100)},
		{"2% edited", mutate(r, base, alpha, 2*size/100)},
		{"lines shuffled", shuffleLines(r, base)},
	} {
		want, _ := full.bitLCS(base, tc.b, 0)
		total := len(base) + len(tc.b)
		for _, c := range []int{want, want + 1, want - 1, (9*total + 19) / 20} {
			got, ok := mt.lcsAtLeast(base, tc.b, c)
			if (want >= c) != ok || (ok && got != want) {
				t.Errorf("%s, cutoff %d: %d, %v; want LCS %d", tc.name, c, got, ok, want)
			}
		}
	}
}

func substitute(r *rand.Rand, s, alphabet []rune, k int) []rune {
	out := append([]rune(nil), s...)
	for range k {
		out[r.IntN(len(out))] = alphabet[r.IntN(len(alphabet))]
	}
	return out
}

func shuffleLines(r *rand.Rand, s []rune) []rune {
	lines := strings.SplitAfter(string(s), "\n")
	r.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	return []rune(strings.Join(lines, ""))
}

// BenchmarkMatcherBuild builds the masks of a kilobyte of log text, the
// size of most outputs fuzzy_repeat compares closely (each bitLCS builds
// them).
func BenchmarkMatcherBuild(b *testing.B) {
	a := []rune(logText(rand.New(rand.NewPCG(3, 4)), 1<<10) + "é∑")
	var mt lcsMatcher
	words := (len(a) + 63) / 64
	b.SetBytes(int64(len(a)))
	for b.Loop() {
		mt.build(a, words)
	}
}

// TestDiagonalMatchesWithin holds diagonalMatchesWithin to counting the
// positions where a and b agree: it answers whether at most maxMiss of
// a's disagree, and when they do, with the whole count (lcsShared then
// uses the diagonal's distance; it must be exact).
func TestDiagonalMatchesWithin(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	alphabets := [][]rune{[]rune("ab"), []rune("abcd"), []rune("aé日\U0001F600 x")}
	for it := range 5000 {
		alpha := alphabets[it%len(alphabets)]
		a := randomRunes(r, alpha, r.IntN(100))
		b := mutate(r, a, alpha, r.IntN(1+len(a)/3+1))
		if len(a) > len(b) {
			a, b = b, a
		}
		want := 0
		for i := range a {
			if a[i] == b[i] {
				want++
			}
		}
		maxMiss := r.IntN(len(a) + 2)
		got, ok := diagonalMatchesWithin(a, b, maxMiss)
		if ok != (len(a)-want <= maxMiss) || ok && got != want {
			t.Fatalf("diagonalMatchesWithin(%q, %q, %d) = %d, %v; %d agree", string(a), string(b), maxMiss, got, ok, want)
		}
	}
}

// TestDiagonalBytesWithin holds diagonalMatchesWithin over bytes
// (diagonalBytesWithin, eight positions a step) to counting the positions
// where a and b agree: texts of every length to 80 that differ at a few
// places, bytes that differ in any one bit (the high one too) or in all.
func TestDiagonalBytesWithin(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for it := range 20000 {
		n := it % 81
		a := make([]byte, n)
		for i := range a {
			a[i] = byte('a' + r.IntN(4))
		}
		b := append(slices.Clone(a), make([]byte, r.IntN(9))...)
		for range r.IntN(1 + n/4 + 1) {
			if n == 0 {
				break
			}
			i := r.IntN(n)
			switch r.IntN(3) {
			case 0:
				b[i] ^= 1 << r.IntN(8)
			case 1:
				b[i] = ^a[i]
			default:
				b[i] = byte(r.IntN(256))
			}
		}
		want := 0
		for i := range a {
			if a[i] == b[i] {
				want++
			}
		}
		maxMiss := r.IntN(n + 2)
		got, ok := diagonalMatchesWithin(a, b, maxMiss)
		if ok != (n-want <= maxMiss) || ok && got != want {
			t.Fatalf("diagonalMatchesWithin(%q, %q, %d) = %d, %v; %d agree", a, b, maxMiss, got, ok, want)
		}
	}
}

// codeText is .ci/agentlogs.py's code_text: lines of words from a small
// vocabulary, indented, as the generated logs' grown tool outputs are.
func codeText(r *rand.Rand, n int) string {
	words := strings.Fields("def return import from self value error test assert path config " +
		"result index append string buffer open close read write line count " +
		"token parse check state event handle")
	var b strings.Builder
	for b.Len() < n {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(strings.Repeat("    ", r.IntN(3)))
		for i := range 3 + r.IntN(7) {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[r.IntN(len(words))])
		}
	}
	return b.String()
}

// BenchmarkLCSUnrelated is the LCS most pairs of a generated agent log
// that reach it take: two unrelated code-like outputs of 1.5 KB, of the
// same words (their code point counts do not tell them apart), cut off
// at the 0.90 threshold, which they fail (bitLCS stops early); and a
// near-duplicate, whose band is one word.
func BenchmarkLCSUnrelated(b *testing.B) {
	r := rand.New(rand.NewPCG(21, 22))
	x, y := []rune(codeText(r, 1500)), []rune(codeText(r, 1500))
	near := append([]rune(nil), x...)
	for range 8 {
		near[r.IntN(len(near))] = 'q'
	}
	var mt lcsMatcher
	for _, c := range []struct {
		name string
		a, b []rune
	}{{"unrelated", x, y}, {"near", x, near}} {
		cutoff := (9*(len(c.a)+len(c.b)) + 19) / 20
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.b)))
			for b.Loop() {
				mt.lcsAtLeast(c.a, c.b, cutoff)
			}
		})
		// ASCII texts compared over their bytes, as fuzzy_repeat does.
		sa, sb := string(c.a), string(c.b)
		b.Run(c.name+"/bytes", func(b *testing.B) {
			b.SetBytes(int64(len(sb)))
			for b.Loop() {
				mt.lcsBytes(sa, sb, cutoff, -1)
			}
		})
	}
}

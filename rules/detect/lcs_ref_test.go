package detect

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// bitLCSPlain is bitLCS as it was before it ran its columns in runs of a
// fixed band (columns): the band moved, and checked, after every column.
// It is the reference for TestBitLCSRunsAsPlain.
func (mt *lcsMatcher) bitLCSPlain(a, b []rune, cutoff int) (int, bool) {
	m, n := len(a), len(b)
	words := (m + 63) / 64
	mt.startBuild(words)
	if cap(mt.v) < words {
		mt.v = make([]uint64, words)
	}
	v := mt.v[:words]
	for i := range v {
		v[i] = ^uint64(0)
	}
	left, right := m-cutoff, n-cutoff // unmatched rows, unmatched columns allowed
	first, last := 0, min(words, (left+2+63)/64)
	// below counts the zero bits of the words under the band: they no
	// longer change.
	below, counted := 0, 0
	var sh *bandShrink
	if cutoff > 0 && m >= shrinkFrom {
		// bandShrink numbers its code points after the masks' rows: all
		// of them, built first.
		mt.buildTo(a, m)
		sh = mt.newShrink(a, b, m+n-2*cutoff, -left-1, right+1)
	}
	// The words under last are built: a code point of b not yet met in
	// a (row -1) has no bit in them.
	mt.buildTo(a, min(m, 64*last))
	capLast := words // the band's top is held under capLast (sh)
	for j, r := range b {
		k := mt.row(r)
		if sh != nil && sh.hist {
			sh.column(k)
		}
		if k >= 0 {
			lcsColumn(v[first:last], mt.peq[k*words+first:k*words+last])
		}
		// The band for column j+1.
		if lo := j + 1 - right - 1; lo > 0 {
			first = max(first, lo/64)
		}
		top := words
		if hi := j + 1 + left + 2; hi < m {
			top = (hi + 63) / 64
		}
		last = max(last, min(top, capLast))
		if 64*last > mt.built && mt.built < m {
			mt.buildTo(a, min(m, 64*last))
		}
		if sh != nil && j%64 == 63 {
			// Narrow the band to the rows an alignment within the budget
			// can use (bandShrink); the bottom for good, the top for the
			// next 64 columns.
			for first < last && sh.belowOut(first, j+1, zeros(v[first:first+1], 64), below+zerosUpTo(v, counted, first)) {
				first++
			}
			if first >= last {
				return 0, false
			}
			capLast = sh.topCap(last, min(words, top+1), j+1, below+zerosUpTo(v, counted, first)+zeros(v[first:last], (last-first)*64))
		}
		// Stop when no alignment can still reach cutoff. With k columns
		// left, a path at row i ends with at most D[i] + min(m-i, k),
		// which is largest at i* = m-k (D grows by at most one a row):
		// below it, D[i*] + k; above it, m-i falls as fast as D can rise.
		if cutoff > 0 && j%64 == 63 {
			for ; counted < first; counted++ {
				below += zeros(v[counted:counted+1], 64)
			}
			k := n - 1 - j
			if k == 0 {
				// The last column: the count below decides.
			} else if i := m - k; i <= 0 {
				if k < cutoff {
					return 0, false
				}
			} else if w := i / 64; w >= first {
				d := below + zeros(v[first:w], (w-first)*64)
				if rest := i % 64; rest > 0 {
					d += zeros(v[w:w+1], rest)
				}
				if d+k < cutoff {
					return 0, false
				}
			} else if zeros(v, m)+k < cutoff {
				return 0, false
			}
		}
	}
	l := zeros(v, m)
	return l, l >= cutoff
}

// lcsTestPair is case it's pair of texts over alpha, the shorter first:
// one near (a few edits) or far (random, or many edits) from the other,
// of 1 to 1,500 code points; b is nil when the edits left nothing.
func lcsTestPair(r *rand.Rand, alpha []rune, it int) (a, b []rune) {
	a = randomRunes(r, alpha, 1+r.IntN([]int{100, 400, 1500}[it%3]))
	switch it % 4 {
	case 0:
		b = randomRunes(r, alpha, max(len(a)+r.IntN(60)-30, 1))
	case 1:
		b = mutate(r, a, alpha, r.IntN(len(a)/20+2))
	default:
		b = mutate(r, a, alpha, r.IntN(len(a)/4+2))
	}
	if len(b) == 0 {
		return nil, nil
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	return a, b
}

// TestBitLCSRunsAsPlain holds bitLCS, which skips the band's update
// between the columns where it can move, to the plain loop that updates
// it after every column: the same result and the same bit vector, word
// for word (a band moved a column late or early shows there, where the
// LCS, with its row of slack, may not), for pairs near and far, at
// cutoffs around the LCS, with and without the band's narrowing.
func TestBitLCSRunsAsPlain(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	alphabets := [][]rune{[]rune("ab"), []rune("abcdefghijklmnopqrstuvwxyz .,\n"), []rune("aé日\U0001F600 x")}
	var mt, ref lcsMatcher
	defaultShrink := shrinkFrom
	defer func() { shrinkFrom, seedForce = defaultShrink, 0 }()
	for it := range 1500 {
		alpha := alphabets[it%len(alphabets)]
		a, b := lcsTestPair(r, alpha, it)
		if b == nil {
			continue
		}
		want := naiveLCS(a, b)
		shrinkFrom = []int{defaultShrink, 64}[it%2]
		seedForce = []int{0, 0, 0, 4}[it%4]
		for _, c := range []int{0, want - 1, want, want + 1, want + r.IntN(40) - 20, (9*(len(a)+len(b)) + 19) / 20} {
			c = min(max(c, 0), len(a))
			got, ok := mt.bitLCS(a, b, c)
			wantN, wantOK := ref.bitLCSPlain(a, b, c)
			if got != wantN || ok != wantOK || !slices.Equal(mt.v[:mt.words], ref.v[:ref.words]) {
				t.Fatalf("case %d (%d+%d runes), cutoff %d: bitLCS = %d, %v; plain %d, %v (LCS %d), vectors equal: %v",
					it, len(a), len(b), c, got, ok, wantN, wantOK, want, slices.Equal(mt.v[:mt.words], ref.v[:ref.words]))
			}
		}
	}
}

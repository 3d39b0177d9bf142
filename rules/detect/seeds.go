package detect

import "math"

// seedBound is a second lower bound of the Indel distance left from a
// point of the alignment, much tighter than the code point counts when the
// two texts are near-duplicates: the gap-chaining seed heuristic of A*PA
// (Groot Koerkamp and Ivanov, "Exact global alignment using A* with
// chaining seed heuristic and match pruning", Bioinformatics 2024), its
// costs made for Indel distance.
//
// The text b is cut into seeds of s code points, b[ts : ts+s]. A match is
// an occurrence of a seed in a, at row r: a[r : r+s] == seed t, on the
// diagonal d = ts − r. Take any alignment from the point (i, j) to the
// end, and all the matches it follows (the seeds it aligns exactly), in
// order: a chain. Between
// two consecutive ones (or the point and the first, or the last and the
// end) lie seeds aligned inexactly, each costing at least one edit (two
// for a far seed: see build), g in all, and the diagonal moves by Δ,
// which costs |Δ| edits; the stretch's cost has the parity of Δ (its two
// lengths sum to twice one plus Δ). So it costs at least gapCost(g, Δ),
// the least x >= max(g, |Δ|) of Δ's parity: one substitution inside a
// seed (Δ = 0, g = 1 or 2) costs 2, as it does; two substitutions in
// seeds next to each other cost 4 when the seeds are far. The
// bound is the least sum over chains; H below is that least sum from each
// match's end.
//
// It stays a lower bound with fewer matches than exist only if no
// alignment that matters can use the ones left out: matches off the
// diagonals an alignment within the budget can reach are left out (no
// such alignment uses them); a seed with too many occurrences there is
// left out whole (it is no longer a seed: g does not count it). Chains
// look seedLookahead seeds ahead exactly; past them, a chain from seed t
// to a match w of seed u pays at least the seeds skipped plus H(w),
// cnt[u] + H(w) − cnt[t+1]: the least cnt[u] + H(w) over the seeds from
// there on (kmin) bounds them all.
type seedBound struct {
	s, m, n       int
	seeds         int     // whole seeds in b
	cnt           []int32 // cnt[t]: the weights of the first t seeds (0: left out, 2: far)
	start         []int32 // matches of seed t: row[start[t]:start[t+1]]
	row, h        []int32 // each match's row in a, and its H
	kmin          []int32 // kmin[t]: least cnt[u] + H(w) over the matches w of seeds u >= t
	a             []rune
	grams, halves gramIndex // a's s-grams and s/2-grams
	cand          []int32   // far's, reused
}

const (
	seedLookahead = 8
	seedMaxWalk   = 96 // positions looked at for one seed's occurrences
	seedMaxOcc    = 24 // occurrences kept for one seed
	// A seed's halves are shorter and occur more (7 code points of log
	// text): looking at more of their occurrences finds more seeds far
	// (1 MB outputs 4.3% apart: 81% of the seeds not found, not 69%; 386
	// words a column, not 419; 64 times would gain 4% more for more time).
	halfMaxWalk = 16 * seedMaxWalk
	halfMaxOcc  = 16 * seedMaxOcc
	noBound     = math.MaxInt32
)

// seedLen picks the seed length for a budget of edits over texts of total
// length: seeds short enough that most hold no edit, long enough not to
// occur by chance (from 14 code points on, the length matters little). It
// is 0 when seeds would not pay for their finding: past 6% of edits, most
// seeds hold one.
func seedLen(budget, total int) int {
	if seedForce > 0 {
		return seedForce
	}
	if budget <= 0 || 100*budget > 6*total {
		return 0
	}
	return min(64, max(14, int(0.08*float64(total)/float64(budget))))
}

// seedForce, when above 0, is the seed length for every budget: the tests
// hold short texts' LCS with seeds to the naive table.
var seedForce = 0

// gapCost is the least cost of a stretch with g inexact seeds whose
// diagonal moves by delta.
func gapCost(g, delta int) int {
	if delta < 0 {
		delta = -delta
	}
	x := max(g, delta)
	return x + (x-delta)&1
}

// gramIndex finds the occurrences of n-grams in a on a window of rows
// that slides up a: a's n-grams enter a small hash table as the window's
// top passes them, and are ignored once under its bottom (chains run from
// the latest position down, so a walk stops at the first one under it).
// The table's slots and the positions' links are indexed modulo a power of
// two above the window's width: a position in the window was written
// after any position sharing its slot.
type gramIndex struct {
	a          []rune
	n          int
	pow, x     uint64 // base^(n-1); the rolling hash of a[p-n : p]
	p          int    // a's code points hashed
	ring, bits int
	head, nxt  []int32
}

const gramBase = 0x100000001b3

func (g *gramIndex) reset(a []rune, n, width int) {
	*g = gramIndex{a: a, n: n, pow: 1, head: g.head, nxt: g.nxt}
	for range n - 1 {
		g.pow *= gramBase
	}
	ringBits := 6
	for 1<<ringBits <= width {
		ringBits++
	}
	g.ring, g.bits = 1<<ringBits-1, ringBits+1
	g.head = fill(g.head, 1<<g.bits, -1)
	g.nxt = growI32(g.nxt, g.ring+1)
}

// bucket is a hash's slot: the top bits of its product with a constant
// that mixes its last code points in.
func (g *gramIndex) bucket(x uint64) int { return int((x * 0x9e3779b97f4a7c15) >> (64 - g.bits)) }

func gramHash(gram []rune) uint64 {
	var y uint64
	for _, r := range gram {
		y = y*gramBase + uint64(r)
	}
	return y
}

// upTo enters the n-grams starting at rows up to top.
func (g *gramIndex) upTo(top int) {
	a, n := g.a, g.n
	for ; g.p < len(a) && g.p-n+1 <= top; g.p++ {
		if g.p >= n {
			g.x -= uint64(a[g.p-n]) * g.pow
		}
		g.x = g.x*gramBase + uint64(a[g.p])
		if q := g.p - n + 1; q >= 0 {
			bk := g.bucket(g.x)
			g.nxt[q&g.ring] = g.head[bk]
			g.head[bk] = int32(q)
		}
	}
}

// find appends to rows the occurrences of gram on rows [lo, hi] (entered
// with upTo), and says whether it found them all within limit of each
// kind: positions walked and occurrences.
func (g *gramIndex) find(gram []rune, lo, hi, walk, occ int, rows []int32) ([]int32, bool) {
	if lo > hi {
		return rows, true
	}
	y := gramHash(gram)
	found := 0
	for q := int(g.head[g.bucket(y)]); q >= lo; q = int(g.nxt[q&g.ring]) {
		if walk--; walk < 0 {
			return rows, false
		}
		if q > hi || !equalRunes(g.a[q:q+g.n], gram) {
			continue
		}
		if found++; found > occ {
			return rows, false
		}
		rows = append(rows, int32(q))
	}
	return rows, true
}

// build finds the matches of b's seeds in a on the diagonals [dlo, dhi]
// and their H. A seed with no match there weighs 2 when it is not one
// edit away from any piece of a there either (far): aligned to anything,
// it costs at least 2 edits. A piece one edit away holds one half of the
// seed unchanged, in place (the edit is in the other half); the halves'
// occurrences are found like the seeds' and each is checked.
func (sb *seedBound) build(a, b []rune, s, dlo, dhi int) {
	m, n := len(a), len(b)
	*sb = seedBound{s: s, m: m, n: n, seeds: n / s, a: a,
		cnt: sb.cnt[:0], start: sb.start[:0], row: sb.row[:0], h: sb.h[:0],
		kmin: sb.kmin[:0], grams: sb.grams, halves: sb.halves, cand: sb.cand}
	half := s / 2
	sb.grams.reset(a, s, dhi-dlo+1)
	sb.halves.reset(a, half, dhi-dlo+s+4)
	sb.cnt = append(sb.cnt, 0)
	sb.start = append(sb.start, 0)
	for t := range sb.seeds {
		// Pieces aligned to seed t start on rows [ts−dhi, ts−dlo].
		lo, hi := max(t*s-dhi, 0), t*s-dlo
		sb.grams.upTo(min(hi, m-s))
		seed := b[t*s : t*s+s]
		kept := len(sb.row)
		var ok bool
		sb.row, ok = sb.grams.find(seed, lo, min(hi, m-s), seedMaxWalk, seedMaxOcc, sb.row)
		w := int32(0)
		switch {
		case !ok:
			sb.row = sb.row[:kept]
		case len(sb.row) == kept && half > 0:
			w = 1
			sb.halves.upTo(min(hi+s+1, m-half))
			if sb.far(seed, lo, hi) {
				w = 2
			}
		default:
			w = 1
		}
		sb.cnt = append(sb.cnt, sb.cnt[t]+w)
		sb.start = append(sb.start, int32(len(sb.row)))
	}
	// H from the last seed back.
	sb.h = growI32(sb.h, len(sb.row))
	sb.kmin = fill(sb.kmin, sb.seeds+1, noBound)
	T := sb.seeds
	for t := T - 1; t >= 0; t-- {
		least := sb.kmin[t+1]
		for v := sb.start[t]; v < sb.start[t+1]; v++ {
			rv, dv := int(sb.row[v]), t*s-int(sb.row[v])
			best := gapCost(int(sb.cnt[T]-sb.cnt[t+1]), (n-m)-dv)
			for u := t + 1; u < min(T, t+1+seedLookahead); u++ {
				g := int(sb.cnt[u] - sb.cnt[t+1])
				if g >= best {
					break
				}
				for w := sb.start[u]; w < sb.start[u+1]; w++ {
					if rw := int(sb.row[w]); rw >= rv+s {
						best = min(best, gapCost(g, u*s-rw-dv)+int(sb.h[w]))
					}
				}
			}
			if far := t + 1 + seedLookahead; far < T && sb.kmin[far] != noBound {
				best = min(best, int(sb.kmin[far]-sb.cnt[t+1]))
			}
			sb.h[v] = int32(best)
			least = min(least, sb.cnt[t]+int32(best))
		}
		sb.kmin[t] = least
	}
}

// at bounds from below the Indel distance of a[i:] and b[j:] for any
// alignment within the budget, counting only the matches on rows i and
// above.
func (sb *seedBound) at(i, j int) int {
	T := sb.seeds
	t0 := min(T, (j+sb.s-1)/sb.s)
	d0 := j - i
	best := gapCost(int(sb.cnt[T]-sb.cnt[t0]), (sb.n-sb.m)-d0)
	for u := t0; u < min(T, t0+seedLookahead); u++ {
		g := int(sb.cnt[u] - sb.cnt[t0])
		if g >= best {
			break
		}
		for w := sb.start[u]; w < sb.start[u+1]; w++ {
			if rw := int(sb.row[w]); rw >= i {
				best = min(best, gapCost(g, u*sb.s-rw-d0)+int(sb.h[w]))
			}
		}
	}
	if far := t0 + seedLookahead; far < T && sb.kmin[far] != noBound {
		best = min(best, int(sb.kmin[far]-sb.cnt[t0]))
	}
	return best
}

// far says no piece of a starting on rows [lo, hi] is one insertion or
// deletion away from seed (which does not occur there). Such a piece is
// L+R' or L'+R (L, R the seed's halves, the edit in the primed one), so
// it holds L at its start or R at its start plus len(L)±1.
func (sb *seedBound) far(seed []rune, lo, hi int) bool {
	a, half := sb.a, sb.s/2
	l, r := seed[:half], seed[half:]
	var ok bool
	sb.cand, ok = sb.halves.find(l, lo, min(hi, len(a)-half), halfMaxWalk, halfMaxOcc, sb.cand[:0])
	if !ok {
		return false
	}
	for _, q := range sb.cand {
		p := int(q) + half // R', after L
		if p+len(r)-1 <= len(a) && oneDeletion(r, a[p:p+len(r)-1]) ||
			p+len(r)+1 <= len(a) && oneDeletion(a[p:p+len(r)+1], r) {
			return false
		}
	}
	// R is found by its first half (its length when s is odd is one more).
	sb.cand, ok = sb.halves.find(r[:half], lo+half-1, min(hi+half+1, len(a)-len(r)), halfMaxWalk, halfMaxOcc, sb.cand[:0])
	if !ok {
		return false
	}
	for _, q := range sb.cand {
		p := int(q) // L' ends here
		if !equalRunes(a[p:p+len(r)], r) {
			continue
		}
		if p-half+1 >= 0 && oneDeletion(l, a[p-half+1:p]) ||
			p-half-1 >= 0 && oneDeletion(a[p-half-1:p], l) {
			return false
		}
	}
	return true
}

// oneDeletion says y is x with one code point taken out.
func oneDeletion(x, y []rune) bool {
	if len(x) != len(y)+1 {
		return false
	}
	p := 0
	for p < len(y) && x[p] == y[p] {
		p++
	}
	return equalRunes(x[p+1:], y[p:])
}

func equalRunes(x, y []rune) bool {
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}

func fill(x []int32, n int, v int32) []int32 {
	x = growI32(x, n)
	for i := range x {
		x[i] = v
	}
	return x
}

func growI32(x []int32, n int) []int32 {
	if cap(x) < n {
		return make([]int32, n)
	}
	return x[:n]
}

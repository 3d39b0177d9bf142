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
// end) lie g seeds aligned inexactly, each costing at least one edit,
// and the diagonal moves by Δ, which costs |Δ| edits; the stretch's cost
// has the parity of Δ (its two lengths sum to twice one plus Δ). So it
// costs at least gapCost(g, Δ), the least x >= max(g, |Δ|) of Δ's parity:
// one substitution inside a seed (Δ = 0, g = 1) costs 2, as it does. The
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
	s, m, n   int
	seeds     int     // whole seeds in b
	cnt       []int32 // cnt[t]: seeds kept among the first t
	start     []int32 // matches of seed t: row[start[t]:start[t+1]]
	row, h    []int32 // each match's row in a, and its H
	kmin      []int32 // kmin[t]: least cnt[u] + H(w) over the matches w of seeds u >= t
	head, nxt []int32 // a's s-grams by hash: chains of positions, latest first
	hashes    []uint64
}

const (
	seedLookahead = 8
	seedMaxWalk   = 96 // positions looked at for one seed's occurrences
	seedMaxOcc    = 24 // occurrences kept for one seed
	noBound       = math.MaxInt32
)

// seedLen picks the seed length for a budget of edits over texts of total
// length: seeds short enough that most hold no edit, long enough not to
// occur by chance. It is 0 when seeds would not pay for their finding:
// past 3% of edits, seeds short enough to hold none occur everywhere.
func seedLen(budget, total int) int {
	if seedForce > 0 {
		return seedForce
	}
	if budget <= 0 || 100*budget > 3*total {
		return 0
	}
	return min(64, max(12, int(0.08*float64(total)/float64(budget))))
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

// build finds the matches of b's seeds in a on the diagonals [dlo, dhi]
// and their H. Seed t's occurrences lie on rows [ts−dhi, ts−dlo], a window
// that slides along a as t grows: a's s-grams enter a small hash table as
// the window's top passes them, and are ignored once under its bottom
// (chains run from the latest position down, so a walk stops at the
// first one under it). The table's slots and the positions' links are
// indexed modulo a power of two above the window's width: a position in
// the window was written after any position sharing its slot.
func (sb *seedBound) build(a, b []rune, s, dlo, dhi int) {
	m, n := len(a), len(b)
	*sb = seedBound{s: s, m: m, n: n, seeds: n / s,
		cnt: sb.cnt[:0], start: sb.start[:0], row: sb.row[:0], h: sb.h[:0],
		kmin: sb.kmin[:0], head: sb.head, nxt: sb.nxt, hashes: sb.hashes}
	const base = 0x100000001b3
	pow := uint64(1)
	for range s - 1 {
		pow *= base
	}
	ringBits := 6
	for 1<<ringBits <= dhi-dlo+1 {
		ringBits++
	}
	ring := 1<<ringBits - 1
	bucketBits := ringBits + 1
	sb.head = fill(sb.head, 1<<bucketBits, -1)
	sb.nxt = growI32(sb.nxt, ring+1)
	sb.hashes = growU64(sb.hashes, ring+1)
	bucket := func(x uint64) int { return int((x * 0x9e3779b97f4a7c15) >> (64 - bucketBits)) }
	var x uint64 // the rolling hash of a[p-s : p]
	p := 0       // a's code points hashed; grams starting below p-s+1 are in the table
	sb.cnt = append(sb.cnt, 0)
	sb.start = append(sb.start, 0)
	for t := range sb.seeds {
		// Rows on the diagonals [dlo, dhi]: d = ts − r.
		rmin, rmax := max(t*s-dhi, 0), min(t*s-dlo, m-s)
		for ; p < m && p-s+1 <= rmax; p++ {
			if p >= s {
				x -= uint64(a[p-s]) * pow
			}
			x = x*base + uint64(a[p])
			if q := p - s + 1; q >= 0 {
				bk := bucket(x)
				sb.hashes[q&ring] = x
				sb.nxt[q&ring] = sb.head[bk]
				sb.head[bk] = int32(q)
			}
		}
		seed := b[t*s : t*s+s]
		var y uint64
		for _, r := range seed {
			y = y*base + uint64(r)
		}
		kept, walked, ok := len(sb.row), 0, true
		if rmin <= rmax {
			for q := int(sb.head[bucket(y)]); q >= rmin; q = int(sb.nxt[q&ring]) {
				if walked++; walked > seedMaxWalk {
					ok = false
					break
				}
				if q > rmax || sb.hashes[q&ring] != y || !equalRunes(a[q:q+s], seed) {
					continue
				}
				if len(sb.row)-kept == seedMaxOcc {
					ok = false
					break
				}
				sb.row = append(sb.row, int32(q))
			}
		}
		c := sb.cnt[t]
		if ok {
			c++
		} else {
			sb.row = sb.row[:kept]
		}
		sb.cnt = append(sb.cnt, c)
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

func growU64(x []uint64, n int) []uint64 {
	if cap(x) < n {
		return make([]uint64, n)
	}
	return x[:n]
}

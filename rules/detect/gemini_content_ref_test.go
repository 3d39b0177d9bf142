package detect

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// refNoLoopPossible is noLoopPossible counting every gram afresh: the
// sparse count of every gram at a multiple of the stride in [from,
// end-c+stride-1], and when one reaches ⌈T/stride⌉ the dense one of
// every gram at [base, end-c], each from an empty table. A check that is
// not deferred counts from the base; a deferred one has the grams of
// [countBase, counted) in its table, counted before it, so it counts from
// countBase (the base when the deferral began, or when its dense count
// did: the sparse one reaches its bound again once it has, counts only
// growing). It is the reference TestNoLoopPossibleRef and
// FuzzNoLoopPossibleRef hold noLoopPossible to.
// all holds every code unit the scanner was given, at its position: the
// scanner drops those before the grams it has counted, which the
// reference counts again.
func refNoLoopPossible(s *chunkScan, all []uint16) bool {
	to := s.end() - s.c
	if to-s.base+1 < max(1, min(s.t, 255)) {
		return true
	}
	from, dense := s.base, s.stride <= 1
	if s.deferred {
		from, dense = s.countBase, s.dense
	}
	if m := s.stride; !dense {
		if refCountGrams(s, all, from, m, to+m-1, (s.t+m-1)/m) {
			return true
		}
		from = s.base
	}
	return refCountGrams(s, all, from, 1, to, s.t)
}

// refCountGrams counts the grams at the multiples of m in [from, last]
// by slot, and reports whether none reaches lim (or 255), as
// noLoopPossible counted them before its window slid by reslicing
// (grams indexed from i), before it skipped histories of fewer than T
// grams and cleared its table only to count, and before its sparse count.
func refCountGrams(s *chunkScan, all []uint16, from, m, last, lim int) bool {
	counts := make([]int, countSlots)
	lim = max(1, min(lim, 255))
	for p := from; p <= last; p++ {
		if p%m != 0 {
			continue
		}
		var k uint64
		if g := s.c; g < gramUnits {
			h := uint64(0)
			for _, u := range all[p : p+g] {
				h = (h ^ uint64(u)) * 0x9E3779B97F4A7C15
			}
			k = h >> (64 - countBits)
		} else {
			g := all[p : p+gramUnits]
			x0 := uint64(g[0]) | uint64(g[1])<<16 | uint64(g[2])<<32 | uint64(g[3])<<48
			x1 := uint64(g[4]) | uint64(g[5])<<16 | uint64(g[6])<<32 | uint64(g[7])<<48
			x2 := uint64(g[8]) | uint64(g[9])<<16 | uint64(g[10])<<32 | uint64(g[11])<<48
			x3 := uint64(g[12]) | uint64(g[13])<<16 | uint64(g[14])<<32 | uint64(g[15])<<48
			h := (x0 ^ x1*0x9E3779B97F4A7C15 ^ x2*0xC2B2AE3D27D4EB4F ^ x3*0x165667B19E3779F9) * 0xD6E8FEB86659FD93
			k = h >> (64 - countBits)
		}
		if counts[k]++; counts[k] >= lim {
			return false
		}
	}
	return true
}

// checkNoLoopPossible asks noLoopPossible, on a copy of s's state (its
// counts its own), and the reference, which counts the whole history,
// and fails unless they answer alike. The counts s keeps, stale or
// postponed, are those noLoopPossible left in the stream before (add
// asks it), so a table not cleared, or grams not counted later, make the
// answers differ. When no loop is possible, a scan of every chunk not
// scanned yet, on another copy, must find none (so a bound of the
// sparse count too high fails even where the reference shares it).
// sparse says the sparse count decided where the dense one alone finds
// a loop possible.
func checkNoLoopPossible(t *testing.T, s *chunkScan, all []uint16) (possible, sparse bool) {
	t.Helper()
	if !slices.Equal(all[s.start:s.end()], s.buf) {
		t.Fatalf("the code units kept at [%d, %d) are not those given there", s.start, s.end())
	}
	a := *s
	a.counts = slices.Clone(s.counts)
	got, want := a.noLoopPossible(), refNoLoopPossible(s, all)
	if got != want {
		t.Fatalf("c %d T %d, history [%d, %d) deferred %v counted %d: noLoopPossible %v, reference %v",
			s.c, s.t, s.base, s.end(), s.deferred, s.counted, got, want)
	}
	if got && s.stuck < s.base {
		b := *s
		b.ents, b.heads, b.recent, b.stale = slices.Clone(s.ents), slices.Clone(s.heads), nil, nil
		if b.scan(b.end()) {
			t.Fatalf("c %d T %d, history [%d, %d) %q: noLoopPossible, and a scan finds a loop at %d",
				s.c, s.t, s.base, s.end(), refUTF8(s.units(s.base, s.end())), b.pos)
		}
	}
	to := s.end() - s.c
	return !got, got && to-s.base+1 >= s.t && !refCountGrams(s, all, s.base, 1, to, s.t)
}

// feedChunkScan drives a scanner of chunk c, threshold tt and history
// hist through messages of pieces drawn by next (resets among them),
// checking noLoopPossible against the reference before each message;
// it returns how many checks found a loop possible, and how many the
// sparse count decided.
func feedChunkScan(t *testing.T, c, tt, hist int, next func(int) int, msgs int) (possible, sparse int) {
	t.Helper()
	pieces := []string{"a", "b", "ab", "abc", "\xed\xa0\x80", "\ufffd", "😀", "\n", strings.Repeat("xy", 9), "the quick brown fox "}
	if hist%2 == 0 {
		pieces = []string{"a", "b", "ab", "abc", "\ufffd", "é", "\n", strings.Repeat("xy", 9), "the quick brown fox "}
	}
	s := newChunkScan(c, tt, hist)
	if tt%2 == 0 {
		s.carryFrom = 1 // counts of bytes by carry, at the sparse stride
	}
	var all []uint16 // every code unit given, at its position
	for range msgs {
		if next(4) == 0 {
			s.reset()
			continue
		}
		var sb strings.Builder
		for range next(3 * c) {
			sb.WriteString(pieces[next(len(pieces))])
		}
		if s.buf != nil || s.pending {
			// A history kept as bytes is checked as add reads it when
			// it takes no more (unpend).
			a := s
			a.pb, a.buf = slices.Clone(s.pb), slices.Clone(s.buf)
			a.unpend()
			p, sp := checkNoLoopPossible(t, &a, all)
			if p {
				possible++
			}
			if sp {
				sparse++
			}
		}
		s.add(sb.String())
		all, _ = appendUTF16(all, sb.String())
	}
	return possible, sparse
}

// TestNoLoopPossibleRef holds noLoopPossible to the reference over
// random streams, chunks on both sides of gramUnits, histories that
// truncate often, scans deferred and not, sparse counts (chunks of
// gramUnits+2 units and more) deciding and falling back to dense ones.
func TestNoLoopPossibleRef(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 11))
	possible, sparse := 0, 0
	for i := range 300 {
		c, tt := 1+r.IntN(40), 2+r.IntN(10)
		if i%2 == 0 {
			c = gramUnits + r.IntN(50)
		}
		p, sp := feedChunkScan(t, c, tt, c+r.IntN(8*c), r.IntN, 40)
		possible, sparse = possible+p, sparse+sp
	}
	if possible == 0 {
		t.Fatal("no check found a loop possible: the streams do not test both answers")
	}
	if sparse == 0 {
		t.Fatal("no sparse count decided where the dense one would not: the streams do not test it")
	}
	t.Logf("%d checks found a loop possible; the sparse count decided %d", possible, sparse)
}

// FuzzNoLoopPossibleRef is TestNoLoopPossibleRef over any stream: data
// draws the pieces, the resets and the configuration.
func FuzzNoLoopPossibleRef(f *testing.F) {
	f.Add([]byte("\x32\x05\x10abababababababababababababab\x00\x01\x02\x03"))
	f.Add([]byte("\x08\x02\x03xyxyxyxyxyxyxyxyxy"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 3 {
			return
		}
		c, tt := 1+int(data[0])%70, 2+int(data[1])%10
		hist := c + int(data[2])%(8*c+1)
		data = data[3:]
		next := func(n int) int {
			if len(data) == 0 || n <= 0 {
				return 0
			}
			v := int(data[0]) % n
			data = data[1:]
			return v
		}
		feedChunkScan(t, c, tt, hist, next, 200)
	})
}

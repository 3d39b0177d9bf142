package detect

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// refNoLoopPossible is noLoopPossible as it was before its window slid
// by reslicing (grams indexed from i) and before it skipped histories
// of fewer than T grams and cleared its table only to count: the
// reference TestNoLoopPossibleRef and FuzzNoLoopPossibleRef hold it to,
// asked as a fresh check (not deferred), which counts every gram of the
// history, as a deferred check has with those counted before it.
func refNoLoopPossible(s *chunkScan) bool {
	if s.counts == nil {
		s.counts = make([]uint8, 1<<13)
	}
	counts := s.counts[:1<<13]
	if !s.deferred {
		clear(counts)
		s.counted = s.base
	}
	from, to := s.counted, s.end()-s.c
	if to < from {
		return true
	}
	lim := uint8(max(1, min(s.t, 255)))
	if g := s.c; g < gramUnits {
		b := s.buf[from-s.start : to-s.start+g]
		for i := 0; i+g <= len(b); i++ {
			h := uint64(0)
			for _, u := range b[i : i+g] {
				h = (h ^ uint64(u)) * 0x9E3779B97F4A7C15
			}
			k := h >> (64 - 13)
			if counts[k]++; counts[k] >= lim {
				return false
			}
		}
		s.counted = to + 1
		return true
	}
	b := s.buf[from-s.start : to-s.start+gramUnits]
	for i := 0; i+gramUnits <= len(b); i++ {
		g := b[i : i+gramUnits : i+gramUnits]
		x0 := uint64(g[0]) | uint64(g[1])<<16 | uint64(g[2])<<32 | uint64(g[3])<<48
		x1 := uint64(g[4]) | uint64(g[5])<<16 | uint64(g[6])<<32 | uint64(g[7])<<48
		x2 := uint64(g[8]) | uint64(g[9])<<16 | uint64(g[10])<<32 | uint64(g[11])<<48
		x3 := uint64(g[12]) | uint64(g[13])<<16 | uint64(g[14])<<32 | uint64(g[15])<<48
		h := (x0 ^ x1*0x9E3779B97F4A7C15 ^ x2*0xC2B2AE3D27D4EB4F ^ x3*0x165667B19E3779F9) * 0xD6E8FEB86659FD93
		k := h >> (64 - 13)
		if counts[k]++; counts[k] >= lim {
			return false
		}
	}
	s.counted = to + 1
	return true
}

// checkNoLoopPossible asks noLoopPossible, on a copy of s's state (its
// counts its own), and the reference, on a fresh copy that counts the
// whole history, and fails unless they answer alike. The counts s
// keeps, stale or postponed, are those noLoopPossible left in the
// stream before (add asks it), so a table not cleared, or grams not
// counted later, make the answers differ.
func checkNoLoopPossible(t *testing.T, s *chunkScan) (possible bool) {
	t.Helper()
	a, b := *s, *s
	a.counts, b.counts = slices.Clone(s.counts), nil
	b.deferred = false
	got, want := a.noLoopPossible(), refNoLoopPossible(&b)
	if got != want {
		t.Fatalf("c %d T %d, history [%d, %d) deferred %v counted %d: noLoopPossible %v, reference %v",
			s.c, s.t, s.base, s.end(), s.deferred, s.counted, got, want)
	}
	return !got
}

// feedChunkScan drives a scanner of chunk c, threshold tt and history
// hist through messages of pieces drawn by next (resets among them),
// checking noLoopPossible against the reference before each message;
// it returns how many checks found a loop possible.
func feedChunkScan(t *testing.T, c, tt, hist int, next func(int) int, msgs int) (possible int) {
	t.Helper()
	pieces := []string{"a", "b", "ab", "abc", "\xed\xa0\x80", "\ufffd", "😀", "\n", strings.Repeat("xy", 9), "the quick brown fox "}
	s := newChunkScan(c, tt, hist)
	for range msgs {
		if next(4) == 0 {
			s.reset()
			continue
		}
		var sb strings.Builder
		for range next(3 * c) {
			sb.WriteString(pieces[next(len(pieces))])
		}
		if s.buf != nil && checkNoLoopPossible(t, &s) {
			possible++
		}
		s.add(sb.String())
	}
	return possible
}

// TestNoLoopPossibleRef holds noLoopPossible to the reference over
// random streams, chunks on both sides of gramUnits, histories that
// truncate often, scans deferred and not.
func TestNoLoopPossibleRef(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 11))
	possible := 0
	for i := range 300 {
		c, tt := 1+r.IntN(40), 2+r.IntN(10)
		if i%2 == 0 {
			c = gramUnits + r.IntN(50)
		}
		possible += feedChunkScan(t, c, tt, c+r.IntN(8*c), r.IntN, 40)
	}
	if possible == 0 {
		t.Fatal("no check found a loop possible: the streams do not test both answers")
	}
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

package detect

import (
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestChunkScanDeferral checks that putting off a message's scan
// (noLoopPossible) changes no verdict: a scanner that defers and one
// that never does get the same messages and resets, with chunk sizes on
// both sides of gramUnits, histories that truncate often, texts of a few
// letters (loops, and grams counted T times) and lone surrogates (keys
// equal where units differ, the case a truncation during a deferral
// would get wrong, and a scan must not be put off across) or none (a
// deferral kept across truncations).
func TestChunkScanDeferral(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 7))
	withSurrogates := []string{"a", "b", "ab", "abc", "\xed\xa0\x80", "\ufffd", "😀", "\xed\xb0\x80", strings.Repeat("xy", 9), "\n"}
	plain := []string{"a", "b", "ab", "abc", "\ufffd", "é", strings.Repeat("xy", 9), "\n", "the quick brown fox "}
	ascii := []string{"a", "b", "ab", "abc", strings.Repeat("xy", 9), "\n", "the quick brown fox ", "jumps ", "over the ", "lazy dog. "}
	deferred, scans, across, pending := 0, 0, 0, 0
	scanners := 600
	if testing.Short() {
		scanners = 150
	}
	for i := range scanners {
		c, tt := 1+r.IntN(40), 2+r.IntN(10)
		switch i % 3 {
		case 0:
			c = gramUnits + r.IntN(40)
		case 1: // tiny: truncations during deferrals
			c, tt = 1+r.IntN(4), 2+r.IntN(3)
		}
		hist := c + r.IntN(8*c)
		pieces, long := withSurrogates, 3*c
		switch i % 4 {
		case 2:
			pieces = plain
		case 3: // kept as bytes (addPending), in chunks a sparse count takes
			pieces = ascii
			if c < gramUnits+2 {
				c, hist = c+gramUnits+2, hist+gramUnits+2
			}
			long = c // fewer pieces, of more letters: grams of fewer repeats

		}
		a, b := newChunkScan(c, tt, hist), newChunkScan(c, tt, hist)
		b.mul, b.top = a.mul, a.top
		if i%3 == 0 {
			a.hashMask, b.hashMask = 3, 3 // many collisions
		}
		for n := range 60 {
			if r.IntN(4) == 0 {
				a.reset()
				b.reset()
				continue
			}
			var sb strings.Builder
			for range r.IntN(long) {
				sb.WriteString(pieces[r.IntN(len(pieces))])
			}
			b.gain = -maxGain // b never defers
			if a.deferred && a.end()+len(AppendUTF16(nil, sb.String()))-a.base > hist && a.surrEnd <= a.base {
				across++ // the deferral outlives the truncation
			}
			got, want := a.add(sb.String()), b.add(sb.String())
			if got != want {
				t.Fatalf("scanner %d (c %d, T %d, history %d), message %d %q: loop %v, without deferral %v", i, c, tt, hist, n, sb.String(), got, want)
			}
			scans++
			if a.deferred {
				deferred++
			}
			if a.pending {
				pending++
			}
		}
	}
	// The messages must reach both branches.
	if deferred < scans/10 || deferred > scans*9/10 {
		t.Errorf("%d of %d messages deferred", deferred, scans)
	}
	if pending < scans/50 {
		t.Errorf("%d of %d messages kept as bytes", pending, scans)
	}
	if across < scans/100 {
		t.Errorf("%d of %d messages truncated a deferred history without a surrogate", across, scans)
	}
	t.Logf("%d of %d messages deferred (%d kept as bytes), %d truncated a deferred history without a surrogate", deferred, scans, pending, across)
}

// BenchmarkContentAddReset adds a message to a content scan of the
// default configuration and resets it, as the detector does at a
// message followed by a tool call: most messages of the coding agents'
// logs, short or long. Per op: one add, one reset.
func BenchmarkContentAddReset(b *testing.B) {
	for _, n := range []int{20, 100, 1000} {
		r := rand.New(rand.NewPCG(1, uint64(n)))
		bs := make([]byte, n)
		for i := range bs {
			bs[i] = "abcdefghijklmnopqrstuvwxyz  ."[r.IntN(29)]
		}
		msg := string(bs)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			s := newChunkScan(50, 10, 5000)
			for b.Loop() {
				if s.add(msg) {
					b.Fatal("a loop in one message")
				}
				s.reset()
			}
		})
	}
}

// TestChunkScanEmptyReset holds chunkScan.empty to its claim: a reset of
// a scanner it reports empty leaves its state as it was, so the detector
// may skip the reset (and the element scan that asks for it).
func TestChunkScanEmptyReset(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 3))
	pieces := []string{"a", "b", "abc", "\xed\xa0\x80", "😀", "\n", strings.Repeat("xy", 9), "the quick brown fox "}
	empties := 0
	for range 200 {
		c := 1 + r.IntN(60)
		s := newChunkScan(c, 2+r.IntN(10), c+r.IntN(8*c))
		for range 40 {
			if s.empty() {
				empties++
				a := s
				a.reset()
				if !reflect.DeepEqual(a, s) {
					t.Fatalf("a reset of an empty scanner changed it:\n%+v\nwas\n%+v", a, s)
				}
			}
			if r.IntN(3) == 0 {
				s.reset()
				continue
			}
			var sb strings.Builder
			for range 1 + r.IntN(2*c) {
				sb.WriteString(pieces[r.IntN(len(pieces))])
			}
			s.add(sb.String())
			if s.empty() {
				t.Fatalf("empty after adding %q", sb.String())
			}
		}
	}
	if empties < 1000 {
		t.Errorf("%d empty scanners checked", empties)
	}
}

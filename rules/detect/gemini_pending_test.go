package detect

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestAddPendingAsScan holds addPending (ASCII messages kept as bytes
// from the history's start, those that overfill it too, their grams
// counted sparsely and then densely on the bytes) to the scanner that
// never defers: after every message both hold the same history at the
// same positions and give the same verdict, and a history kept as bytes
// holds no chunk T times (what noLoopPossible's counts promise: a count
// that missed a gram would let a loop's chunk be put off). The texts are
// of few letters, so that chunks recur close to T times.
func TestAddPendingAsScan(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 24))
	pieces := []string{"a", "b", "ab", "abc", "\n", strings.Repeat("xy", 9), "the quick brown fox ", "jumps ", "over the ", "lazy dog. "}
	overfilled, dense, sparse, carried := 0, 0, 0, 0
	for range 400 {
		c, tt := gramUnits+1+r.IntN(20), 2+r.IntN(6)
		hist := c + r.IntN(10*c)
		a, b := newChunkScan(c, tt, hist), newChunkScan(c, tt, hist)
		b.mul, b.top = a.mul, a.top
		b.gain = -maxGain // b never defers
		// Most of a's counts of bytes are carry counts (their tables
		// cleared), some floor counts, some each after the other.
		a.carryFrom = []int{0, 1, 4, carryGrams}[r.IntN(4)]
		for range 40 {
			if r.IntN(3) == 0 {
				a.reset()
				b.reset()
				continue
			}
			var sb strings.Builder
			for range r.IntN(2 * c) {
				sb.WriteString(pieces[r.IntN(len(pieces))])
			}
			msg := sb.String()
			starts := !a.pending && a.end() == a.base
			got, want := a.add(msg), b.add(msg)
			if got != want {
				t.Fatalf("c %d T %d history %d, message %q: loop %v, without deferral %v", c, tt, hist, msg, got, want)
			}
			held := a.units(a.base, a.end())
			if a.pending {
				held = AppendUTF16(nil, string(a.pb))
			}
			if a.base != b.base || !slices.Equal(held, b.units(b.base, b.end())) {
				t.Fatalf("c %d T %d history %d, message %q: history at %d %q, without deferral at %d %q",
					c, tt, hist, msg, a.base, refUTF8(held), b.base, refUTF8(b.units(b.base, b.end())))
			}
			if !a.pending {
				continue
			}
			seen := map[string]int{}
			for p := 0; p+c <= len(a.pb); p++ {
				if seen[string(a.pb[p:p+c])]++; seen[string(a.pb[p:p+c])] >= tt {
					t.Fatalf("c %d T %d history %d: kept as bytes %q, chunk %q %d times", c, tt, hist, a.pb, a.pb[p:p+c], tt)
				}
			}
			if a.carry != 0 {
				carried++
			}
			switch {
			case starts && len(msg) > hist:
				overfilled++
			case a.dense:
				dense++
			default:
				sparse++
			}
		}
	}
	if overfilled < 100 || dense < 100 || sparse < 100 || carried < 100 {
		t.Errorf("kept as bytes: %d messages overfilling the history, %d counted densely, %d sparsely (%d by carry)", overfilled, dense, sparse, carried)
	}
	t.Logf("kept as bytes: %d messages overfilling the history, %d counted densely, %d sparsely (%d by carry)", overfilled, dense, sparse, carried)
}

// TestIsASCIIAsBytes holds isASCII to a test of each byte: strings of
// every length up to 300 (past asciiBlocksFrom), all ASCII or with one byte of the high bit at
// each position (in a word of four, of one, or in the tail).
func TestIsASCIIAsBytes(t *testing.T) {
	plain := func(s string) bool {
		for i := range len(s) {
			if s[i] >= 0x80 {
				return false
			}
		}
		return true
	}
	for n := range 301 { // past asciiBlocksFrom: asciiBlocks' blocks, then the loops
		b := []byte(strings.Repeat("abcdefg\x7f", 38)[:n])
		if got := isASCII(string(b)); !got || got != plain(string(b)) {
			t.Fatalf("isASCII(%q) = %v", b, got)
		}
		for i := range n {
			for _, c := range []byte{0x80, 0xC3, 0xFF} {
				b[i] = c
				if got, want := isASCII(string(b)), plain(string(b)); got != want {
					t.Fatalf("isASCII(%q) = %v, want %v", b, got, want)
				}
				b[i] = 'x'
			}
		}
	}
}

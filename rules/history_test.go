package rules

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestHistory holds the sliding window to the plain "append, drop the
// oldest" it replaces, over many wraps of its backing array.
func TestHistory(t *testing.T) {
	for _, max := range []int{1, 2, 3, 20, 50} {
		h := history[int]{max: max}
		var want []int
		for v := range 7 * max {
			h.push(v)
			want = append(want, v)
			if len(want) > max {
				want = want[1:]
			}
			if !slices.Equal(h.buf, want) {
				t.Fatalf("max %d after pushing %d: %v, want %v", max, v, h.buf, want)
			}
		}
	}
	var none history[string]
	none.push("a") // max 0 keeps nothing
	if len(none.buf) != 0 {
		t.Errorf("max 0: %v", none.buf)
	}
}

// TestModeWindow holds the sliding counts to counting the window afresh:
// the highest count and, on a tie, the item whose key comes first.
func TestModeWindow(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, w := range []int{1, 2, 3, 5, 20} {
		for _, distinct := range []int{2, 3, 8} {
			m := newModeWindow(w, distinct)
			var items, keys []int32
			for i := range 300 {
				k := int32(rng.IntN(distinct))
				m.push(int32(i), k)
				items, keys = append(items, int32(i)), append(keys, k)
				if len(items) > w {
					items, keys = items[1:], keys[1:]
				}
				counts := map[int32]int32{}
				best := int32(0)
				for _, k := range keys {
					counts[k]++
					best = max(best, counts[k])
				}
				mode := int32(-1)
				for j, k := range keys {
					if counts[k] == best {
						mode = items[j]
						break
					}
				}
				if m.len() != len(items) || m.best != best || m.mode() != mode {
					t.Fatalf("w %d, %d keys, after %d pushes: len %d best %d mode %d, want %d %d %d",
						w, distinct, i+1, m.len(), m.best, m.mode(), len(items), best, mode)
				}
			}
		}
	}
}

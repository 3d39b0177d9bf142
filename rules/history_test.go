package rules

import (
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

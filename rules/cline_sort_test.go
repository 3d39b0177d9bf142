package rules

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestUniqueSortedMembersBySize holds uniqueSortedMembers' two sorts,
// the insertion sort written out up to smallMembers and
// slices.SortStableFunc above it, to one reference (a stable sort, then
// the last of each run of a key kept) on either side of the bound, with
// keys repeated so that stability decides which value is kept.
func TestUniqueSortedMembersBySize(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 20))
	keys := []string{"", "a", "b", "ab", "ba", "path", "content", "z", "A", "a\x00"}
	for n := 0; n <= smallMembers+4; n++ {
		for round := 0; round < 200; round++ {
			ms := make([]topMember, n)
			for i := range ms {
				ms[i] = topMember{key: []byte(keys[rng.IntN(len(keys))]), val: fmt.Appendf(nil, "%d", i)}
			}
			want := slices.Clone(ms)
			slices.SortStableFunc(want, func(a, b topMember) int { return bytes.Compare(a.key, b.key) })
			kept := want[:0]
			for j, m := range want {
				if j+1 < len(want) && bytes.Equal(want[j+1].key, m.key) {
					continue
				}
				kept = append(kept, m)
			}
			got := uniqueSortedMembers(slices.Clone(ms))
			if !slices.EqualFunc(got, kept, func(a, b topMember) bool {
				return bytes.Equal(a.key, b.key) && bytes.Equal(a.val, b.val)
			}) {
				t.Fatalf("%d members %q: got %q, want %q", n, ms, got, kept)
			}
		}
	}
}

package report

import (
	"slices"
	"sort"
	"testing"

	"github.com/loopbreak/loopbreak/analyze"
)

// largestRuns picks what sorting a copy of the runs would: the most
// firings (the earlier of equal ones), shown by start, equal starts by
// firings.
func TestLargestRuns(t *testing.T) {
	for seed := range 40 {
		var runs []analyze.Run
		for i := range 30 + seed {
			runs = append(runs, analyze.Run{From: i / 3, Firings: (i*7 + seed) % 5})
		}
		var which []int32
		for i := range runs {
			if i%(seed%3+1) == 0 {
				which = append(which, int32(i))
			}
		}
		for _, limit := range []int{1, 5, 12} {
			// The reference: the stable sorts of a copy.
			ref := slices.Clone(which)
			sort.SliceStable(ref, func(a, b int) bool { return runs[ref[a]].Firings > runs[ref[b]].Firings })
			ref = ref[:min(limit, len(ref))]
			sort.SliceStable(ref, func(a, b int) bool { return runs[ref[a]].From < runs[ref[b]].From })
			if got := largestRuns(runs, which, limit); !slices.Equal(got, ref) {
				t.Errorf("seed %d limit %d: %v, want %v", seed, limit, got, ref)
			}
		}
	}
}

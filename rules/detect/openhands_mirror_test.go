package detect

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMirrorLastValues holds the mirror to the plain list of the last
// cap values, over pushes and the resets the OpenHands detector makes:
// its window, last(n) for every n, back(k) for every k; and its array
// holds the window's values alone (each twice), nothing it let go of.
func TestMirrorLastValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 24))
	for _, c := range []int{1, 2, 3, 5, 6, 20, 64} {
		r := newMirror[*int](c)
		var ref []*int
		for i := range 2000 {
			if rng.IntN(97) == 0 {
				r.reset()
				ref = ref[:0]
			}
			v := new(int)
			*v = i
			r.push(v)
			ref = append(ref, v)
			if len(ref) > c {
				ref = ref[1:]
			}
			if !slices.Equal(r.window(), ref) {
				t.Fatalf("cap %d, push %d: window of %d values, want the last %d", c, i, len(r.window()), len(ref))
			}
			for n := range c + 2 {
				want := ref[max(len(ref)-n, 0):]
				if n > len(ref) {
					want = nil
				}
				if got := r.last(n); !slices.Equal(got, want) || (got == nil) != (want == nil) {
					t.Fatalf("cap %d, push %d: last(%d) differs", c, i, n)
				}
			}
			for k := 1; k <= len(ref); k++ {
				if r.back(k) != ref[len(ref)-k] {
					t.Fatalf("cap %d, push %d: back(%d) differs", c, i, k)
				}
			}
			held := map[*int]int{}
			for _, x := range r.all {
				if x != nil {
					held[x]++
				}
			}
			if len(held) != len(ref) {
				t.Fatalf("cap %d, push %d: %d values held for a window of %d", c, i, len(held), len(ref))
			}
		}
	}
}

// TestMirrorPushAllocs checks that a mirror pushes without allocating.
func TestMirrorPushAllocs(t *testing.T) {
	r := newMirror[*int](6)
	v := new(int)
	if n := testing.AllocsPerRun(1000, func() { r.push(v) }); n != 0 {
		t.Errorf("push allocates %v times", n)
	}
}

package detect

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRingLastValues checks the sliding ring against the plain list of
// the last cap values, over pushes and the resets the detectors make
// (buf[:0]); the values it lets go of are not left in its array.
func TestRingLastValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 24))
	for _, c := range []int{1, 2, 3, 5, 25, 64} {
		r := newRing[*int](c)
		var ref []*int
		reset := false
		for i := range 2000 {
			if i >= 1000 && rng.IntN(97) == 0 {
				r.buf, ref, reset = r.buf[:0], ref[:0], true
			}
			v := new(int)
			*v = i
			r.push(v)
			ref = append(ref, v)
			if len(ref) > c {
				ref = ref[1:]
			}
			if !slices.Equal(r.buf, ref) {
				t.Fatalf("cap %d, push %d: ring holds %d values, want the last %d", c, i, len(r.buf), len(ref))
			}
			if got := r.last(len(ref)); !slices.Equal(got, ref) {
				t.Fatalf("cap %d, push %d: last(%d) differs", c, i, len(ref))
			}
			if len(r.all) != 2*c {
				t.Fatalf("cap %d: array of %d values, want %d", c, len(r.all), 2*c)
			}
			held := 0
			for _, x := range r.all {
				if x != nil {
					held++
				}
			}
			// A reset leaves its values behind until the window passes
			// over them; before one, only the window is held.
			if !reset && held != len(r.buf) || held < len(r.buf) {
				t.Fatalf("cap %d, push %d: %d values held for a window of %d", c, i, held, len(r.buf))
			}
		}
	}
}

// TestRingPushAllocs checks that a full ring pushes without allocating.
func TestRingPushAllocs(t *testing.T) {
	r := newRing[string](25)
	for range 30 {
		r.push("x")
	}
	if n := testing.AllocsPerRun(1000, func() { r.push("y") }); n != 0 {
		t.Errorf("push allocates %v times", n)
	}
}

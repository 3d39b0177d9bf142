package analyze

import (
	"maps"
	"math/rand/v2"
	"testing"

	"github.com/loopbreak/loopbreak/rules"
)

// TestKindTallyAsMap holds kindTally (Story.UpToCut's counts) to the map
// counted at each firing: every kind of the registry (each in its slot),
// kinds outside it and nil (in the map), in random order.
func TestKindTallyAsMap(t *testing.T) {
	var pool []*rules.Kind
	for _, r := range rules.Registry {
		pool = append(pool, r.Kinds...)
	}
	pool = append(pool, &rules.Kind{Name: "unregistered"}, nil)
	r := rand.New(rand.NewPCG(24, 41))
	for round := range 300 {
		kinds := pool[:1+r.IntN(len(pool))]
		want, got := map[*rules.Kind]int{}, map[*rules.Kind]int{}
		var c kindTally
		for range r.IntN(200) {
			k := kinds[r.IntN(len(kinds))]
			want[k]++
			c.add(k, got)
		}
		c.into(got)
		if !maps.Equal(got, want) {
			t.Fatalf("round %d: %v, want %v", round, got, want)
		}
	}
}

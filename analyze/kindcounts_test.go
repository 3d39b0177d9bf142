package analyze

import (
	"maps"
	"math/rand/v2"
	"testing"

	"github.com/loopbreak/loopbreak/rules"
)

// TestKindCountsAsMap holds kindCounts to the map it replaces
// (Outcome.Counts[f.KindKey()]++ at each firing): every registered kind
// (each in its slot), a kind outside the registry, and a registered kind
// reported by another rule (keyed by rule/kind, not by the kind's own key;
// both in the map).
func TestKindCountsAsMap(t *testing.T) {
	var firings []rules.Firing
	for _, r := range rules.Registry {
		for _, k := range r.Kinds {
			firings = append(firings, rules.Firing{Rule: r, Kind: k})
		}
	}
	stray := &rules.Kind{Name: "stray"}
	firings = append(firings,
		rules.Firing{Rule: rules.Registry[0], Kind: stray},
		rules.Firing{Rule: rules.Registry[1], Kind: rules.Registry[0].Kinds[0]})
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 50 {
		var c kindCounts
		want := map[string]int{}
		for range rng.IntN(400) {
			// Few kinds an episode, as a real one, or any of them.
			f := &firings[rng.IntN(len(firings))]
			if round%2 == 0 {
				f = &firings[rng.IntN(5)]
			}
			want[f.KindKey()]++
			c.add(f)
		}
		got := map[string]int{}
		c.countsInto(got)
		if !maps.Equal(got, want) {
			t.Fatalf("round %d: counts %v, want %v", round, got, want)
		}
	}
}

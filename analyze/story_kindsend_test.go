package analyze

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/loopbreak/loopbreak/rules"
)

// TestStoryKindsEndAsSwitch holds storyBuilder.add's early return (a kind
// at or past storyKindsEnd, or outside the registry) to the switch over
// every kind: firings of every registered kind and of one outside the
// registry, at random turns, places and urgencies, build the same story
// state with the bound as without it (storyKindsEnd past every index).
func TestStoryKindsEndAsSwitch(t *testing.T) {
	type fk struct {
		rule *rules.Rule
		kind *rules.Kind
	}
	var pool []fk
	for _, r := range rules.Registry {
		for _, k := range r.Kinds {
			pool = append(pool, fk{r, k})
		}
	}
	pool = append(pool, fk{rules.SignatureRepeat, &rules.Kind{Name: "unregistered"}})
	rng := rand.New(rand.NewPCG(24, 15))
	bound := storyKindsEnd
	defer func() { storyKindsEnd = bound }()
	for round := range 200 {
		var fs []rules.Firing
		turn := 1
		for range 1 + rng.IntN(300) {
			turn += rng.IntN(3)
			p := pool[rng.IntN(len(pool))]
			fs = append(fs, rules.Firing{
				Turn: turn, Rule: p.rule, Kind: p.kind,
				Location: fmt.Sprint("room", rng.IntN(3)),
				Pattern:  [2]string{fmt.Sprint("room", rng.IntN(3)), fmt.Sprint("room", rng.IntN(3))},
				Urgency:  []string{"low", "high"}[rng.IntN(2)],
				Rejected: rng.IntN(2) == 0, LowConfidence: rng.IntN(2) == 0,
			})
		}
		build := func(end uint) *storyBuilder {
			storyKindsEnd = end
			b := newStoryBuilder(&Outcome{})
			for i := range fs {
				b.add(&fs[i], i > len(fs)/2)
			}
			return b
		}
		fast, plain := build(bound), build(^uint(0))
		if !reflect.DeepEqual(fast.s, plain.s) || !reflect.DeepEqual(fast.runs, plain.runs) ||
			!reflect.DeepEqual(fast.open, plain.open) || !reflect.DeepEqual(fast.resets, plain.resets) ||
			fast.upTo != plain.upTo || fast.osc != plain.osc || fast.camp != plain.camp {
			t.Fatalf("round %d: the story with the bound differs from the switch's:\n%+v\n%+v", round, fast.s, plain.s)
		}
	}
}

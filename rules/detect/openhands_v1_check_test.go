package detect

import (
	"math/rand/v2"
	"testing"
)

// TestOpenHandsV1CheckAsParts holds Check, which finds the window and
// collects its actions and observations once for the nudge and is_stuck,
// to Nudge and then IsStuck asked apart: random events of every class
// (actions and observations of few keys, errors of few ids, user and
// agent messages) under small thresholds and the defaults, Check asked
// after each event.
func TestOpenHandsV1CheckAsParts(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 1))
	classes := []V1Class{V1Other, V1Action, V1Action, V1Observation, V1AgentError, V1AgentError, V1ObservationBase, V1Message, V1CondensationSummary}
	sources := []string{"agent", "user", "environment"}
	keys := []string{"a", "b", "c"}
	for round := range 3000 {
		c := DefaultOpenHandsV1Config()
		if round%4 != 0 {
			c = OpenHandsV1Config{ActionObservation: 1 + r.IntN(5), ActionError: 1 + r.IntN(5), Monologue: 1 + r.IntN(4), AlternatingPattern: 1 + r.IntN(7)}
		}
		got, err := NewOpenHandsV1(c)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := NewOpenHandsV1(c)
		for i := range 60 {
			e := &OpenHandsV1Event{Class: classes[r.IntN(len(classes))], Source: sources[r.IntN(len(sources))],
				Key: keys[r.IntN(len(keys))], ID: keys[r.IntN(len(keys))], Tool: "t", Error: "e"}
			got.Add(e)
			want.Add(e)
			rule, nudge := got.Check()
			wantRule, wantNudge := RuleV1ActionError, true
			if want.Nudge() == "" {
				wantRule, wantNudge = want.IsStuck(), false
			}
			if rule != wantRule || nudge != wantNudge || got.lastNudged != want.lastNudged {
				t.Fatalf("round %d event %d (%+v): Check %q %v (nudged %q), Nudge and IsStuck %q %v (nudged %q)",
					round, i, c, rule, nudge, got.lastNudged, wantRule, wantNudge, want.lastNudged)
			}
		}
	}
}

package report

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/loopbreak/loopbreak/analyze"
	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// slotRules returns rules of the registry, copies of registered rules
// (their index, another pointer) and rules outside it, shuffled: which
// ran (the first ran of them) and which fire.
func slotRules(r *rand.Rand) (ran, firing []*rules.Rule) {
	var all []*rules.Rule
	for _, x := range rules.Registry {
		if r.IntN(3) != 0 {
			all = append(all, x)
		}
		if r.IntN(4) == 0 {
			c := *x
			all = append(all, &c)
		}
	}
	all = append(all, &rules.Rule{Name: "outside", Kinds: []*rules.Kind{{Name: "loop"}}})
	r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	return all[:r.IntN(len(all)+1)], all
}

// slotFirings returns firings of the rules, in step order, resets among
// them.
func slotFirings(r *rand.Rand, rs []*rules.Rule) []rules.Firing {
	var fs []rules.Firing
	for turn := 1; turn <= 300; turn++ {
		for range r.IntN(3) {
			x := rs[r.IntN(len(rs))]
			f := rules.Firing{Turn: turn, Rule: x, Kind: rules.Reset}
			if len(x.Kinds) > 0 && r.IntN(5) != 0 {
				f.Kind = x.Kinds[r.IntN(len(x.Kinds))]
			}
			fs = append(fs, f)
		}
	}
	return fs
}

// TestDetectorTallyAsMap holds the headline table's rows found by
// Rule.Index (detectorTally.at) to the rows found in its map alone: rules
// of the registry, copies of them (their index, another pointer), rules
// outside it, rules that fire and did not run.
func TestDetectorTallyAsMap(t *testing.T) {
	if len(rules.Registry) > maxRuleSlots {
		t.Errorf("%d rules registered, %d found by index: raise maxRuleSlots", len(rules.Registry), maxRuleSlots)
	}
	r := rand.New(rand.NewPCG(24, 43))
	for round := range 300 {
		ran, firing := slotRules(r)
		o := &analyze.Outcome{Ran: ran}
		judge := func(n int) bool { return n%3 == 0 }
		got, want := newDetectorTally(o, judge, "score"), newDetectorTally(o, judge, "score")
		want.at = [maxRuleSlots]ruleRow{} // the map alone
		for _, f := range slotFirings(r, firing) {
			got.add(&f)
			want.add(&f)
		}
		if !reflect.DeepEqual(got.rows, want.rows) {
			t.Fatalf("round %d: rows\n%+v\nwant\n%+v", round, got.rows, want.rows)
		}
	}
}

// TestAgentLanesAsMap holds the chart's lanes found by Rule.Index
// (AgentStory.laneAt) to the lanes found in its map alone, over the rules
// of TestDetectorTallyAsMap.
func TestAgentLanesAsMap(t *testing.T) {
	r := rand.New(rand.NewPCG(24, 47))
	ep := &replay.Episode{Format: replay.FormatSteps}
	for i := range 300 {
		ep.Turns = append(ep.Turns, replay.Turn{N: i + 1})
	}
	for round := range 300 {
		ran, firing := slotRules(r)
		o := &analyze.Outcome{Ran: ran}
		got, want := newAgentStory(o, ep), newAgentStory(o, ep)
		for _, f := range slotFirings(r, firing) {
			got.Firing(&f, false)
			want.laneAt = [maxRuleSlots]*agentLane{} // the map alone
			want.Firing(&f, false)
		}
		if len(got.lanes) != len(want.lanes) {
			t.Fatalf("round %d: %d lanes, want %d", round, len(got.lanes), len(want.lanes))
		}
		for x, l := range want.lanes {
			if !reflect.DeepEqual(got.lanes[x], l) {
				t.Fatalf("round %d, %s: lane %+v, want %+v", round, x.Name, got.lanes[x], l)
			}
		}
	}
}

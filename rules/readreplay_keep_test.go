package rules_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/loopbreak/loopbreak/replay"
	"github.com/loopbreak/loopbreak/rules"
)

// everyTurn fires its rule's kind at every turn.
type everyTurn struct{ rule *rules.Rule }

func (s everyTurn) Step(t *replay.Turn, env *rules.Env) {
	env.Report(&rules.Firing{Turn: t.N, Rule: s.rule, Kind: s.rule.Kinds[0], Cause: s.rule.Name})
}

// TestReadReplayDropsUnapplied: Finish reports the firings of the rules
// that apply to the episode as read, all of them when every rule stepped
// does (its loop with no test of a firing's stepper), and drops those of
// a rule stepped from the start that applies only with a score when none
// was read, as Run, which steps only the rules that apply, reports.
func TestReadReplayDropsUnapplied(t *testing.T) {
	newRule := func(name string, applies func(*replay.Episode, *rules.Config) bool) *rules.Rule {
		r := &rules.Rule{Name: name, Kinds: []*rules.Kind{{Name: name}}, Enabled: func(*rules.Config) bool { return true }, Applies: applies}
		r.New = func(*rules.Config, *replay.Episode) rules.Stepper { return everyTurn{r} }
		return r
	}
	always := newRule("always", func(*replay.Episode, *rules.Config) bool { return true })
	scored := newRule("scored", func(ep *replay.Episode, _ *rules.Config) bool { return ep.HasScore })
	cfg := rules.Default()
	for _, set := range [][]*rules.Rule{{always, scored}, {scored, always}, {always}} {
		for _, hasScore := range []bool{false, true} {
			ep := &replay.Episode{Turns: make([]replay.Turn, 50)}
			for i := range ep.Turns {
				ep.Turns[i].N = i + 1
			}
			rr := rules.NewReadReplay(context.Background(), ep, cfg, set)
			for i := range ep.Turns {
				ep.HasScore = hasScore && i >= 10
				rr.Step(ep, i)
			}
			var got, want []rules.Firing
			if err := rr.Finish(ep, cfg, set, func(f *rules.Firing) { got = append(got, *f) }); err != nil {
				t.Fatal(err)
			}
			rules.Run(ep, cfg, set, func(f rules.Firing) { want = append(want, f) })
			if len(want) == 0 || !reflect.DeepEqual(got, want) {
				t.Fatalf("rules %d, a score %v: %d firings, Run's %d", len(set), hasScore, len(got), len(want))
			}
		}
	}
}
